package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/secrets"
)

// TestEnsureMaskKey: the key Secret is made once; later reads, and a
// replica that lost the race to create it, get the same key.
func TestEnsureMaskKey(t *testing.T) {
	ctx := context.Background()
	kube := fake.NewClientset()
	first, err := ensureMaskKey(ctx, kube, "roleout", config.DefaultMaskKeySecret)
	if err != nil || len(first) != secrets.KeySize {
		t.Fatalf("first key: %d bytes, %v", len(first), err)
	}
	again, err := ensureMaskKey(ctx, kube, "roleout", config.DefaultMaskKeySecret)
	if err != nil || !bytes.Equal(first, again) {
		t.Errorf("the second read gave another key (%v)", err)
	}
	list, _ := kube.CoreV1().Secrets("roleout").List(ctx, metav1.ListOptions{})
	if len(list.Items) != 1 {
		t.Errorf("%d Secrets, want 1", len(list.Items))
	}

	t.Run("lost race", func(t *testing.T) {
		kube := fake.NewClientset()
		winner := []byte("the-other-replica-won-0123456789")
		kube.PrependReactor("create", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
			// Another replica creates it between our get and create.
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultMaskKeySecret, Namespace: "roleout"}, Data: map[string][]byte{maskKeyField: winner}}
			if err := kube.Tracker().Add(s); err != nil {
				t.Fatal(err)
			}
			return true, nil, apierrors.NewAlreadyExists(corev1.Resource("secrets"), config.DefaultMaskKeySecret)
		})
		got, err := ensureMaskKey(ctx, kube, "roleout", config.DefaultMaskKeySecret)
		if err != nil || !bytes.Equal(got, winner) {
			t.Errorf("after a lost race: %q, %v; want the winner's key", got, err)
		}
	})
	t.Run("no key in the Secret", func(t *testing.T) {
		kube := fake.NewClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "k", Namespace: "roleout"}})
		if _, err := ensureMaskKey(ctx, kube, "roleout", "k"); err == nil || !strings.Contains(err.Error(), `Secret/roleout/k: no data key "key"`) {
			t.Errorf("err = %v", err)
		}
	})
}

// TestLoadMaskerKeyFile: a key file is used as is and no Secret is made;
// a short one is refused, naming the field.
func TestLoadMaskerKeyFile(t *testing.T) {
	dir := t.TempDir()
	good, short := filepath.Join(dir, "key"), filepath.Join(dir, "short")
	if err := os.WriteFile(good, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(short, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	kube := fake.NewClientset()
	m, err := loadMasker(context.Background(), config.Masks{KeyFile: good}, kube, "roleout")
	want, _ := secrets.NewMasker([]byte("0123456789abcdef0123456789abcdef"), secrets.MaskHMAC)
	if err != nil || m.Sum("x", nil) != want.Sum("x", nil) {
		t.Errorf("key file masker: %v", err)
	}
	if len(kube.Actions()) != 0 {
		t.Errorf("a key file must not touch the cluster: %v", kube.Actions())
	}
	if _, err := loadMasker(context.Background(), config.Masks{KeyFile: short}, nil, ""); err == nil || !strings.Contains(err.Error(), "masks: mask key has 3 bytes") {
		t.Errorf("a short key file: %v", err)
	}
}

// maskedSecret is a Secret of the default role with a weak password.
func maskedSecret() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "db", "namespace": "app"},
		"stringData": map[string]any{"password": "hunter2"},
	}}
}

// unkeyedMask is the mask roleout wrote before keyed masks.
func unkeyedMask(salt, key, value string) string {
	sum := sha256.Sum256([]byte(salt + "/" + key + "=" + value))
	return hex.EncodeToString(sum[:12])
}

// runWithKey runs one reconcile of a fresh agent with key and returns its
// status files; with seed, the status branch holds seed and the source a
// new commit.
func runWithKey(t *testing.T, key string, seed map[string][]byte) map[string][]byte {
	t.Helper()
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "app"}}}
	h := newHarness([]*unstructured.Unstructured{ns, maskedSecret(), roleDeployment("api", "api", 1, "api:1")}, nil)
	m, err := secrets.NewMasker([]byte(key), secrets.MaskHMAC)
	if err != nil {
		t.Fatal(err)
	}
	h.agent.deps.Masker = m
	if seed != nil {
		h.status.files = map[string][]byte{}
		for name, data := range seed {
			h.status.files[name] = data
		}
		// A new commit: the status says the first was reconciled.
		h.newCommit('b', h.renderer.objs)
	}
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h.status.files
}

func revisionFiles(files map[string][]byte) []string {
	var out []string
	for name := range files {
		if strings.Contains(name, "/revisions/") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// TestStatusMasksKeyed: nothing on the status branch holds the value or
// its unkeyed digest; one key names the revisions alike on every run,
// another key names them otherwise.
func TestStatusMasksKeyed(t *testing.T) {
	one := runWithKey(t, "install-one-0123456789abcdef", nil)
	again := runWithKey(t, "install-one-0123456789abcdef", nil)
	other := runWithKey(t, "install-two-0123456789abcdef", nil)
	for name, data := range one {
		for _, bad := range []string{"hunter2", unkeyedMask("app/db", "password", "hunter2"), secrets.LegacyPrefix} {
			if bytes.Contains(data, []byte(bad)) {
				t.Errorf("%s holds %q", name, bad)
			}
		}
	}
	if got := revisionFiles(one); len(got) != 2 || strings.Join(got, ",") != strings.Join(revisionFiles(again), ",") {
		t.Errorf("one key, two runs: %v and %v", got, revisionFiles(again))
	}
	var secretRev string
	for _, name := range revisionFiles(one) {
		if bytes.Contains(one[name], []byte(secrets.HMACPrefix)) {
			secretRev = name
		}
	}
	if secretRev == "" {
		t.Fatalf("no revision holds a keyed mask: %v", revisionFiles(one))
	}
	if _, ok := other[secretRev]; ok {
		t.Errorf("another key gave the same revision %s", secretRev)
	}
}

// TestLegacyMasksStillRead: a status branch written with unkeyed masks
// reads without an error; the role holding the Secret gets a new revision.
func TestLegacyMasksStillRead(t *testing.T) {
	first := runWithKey(t, "install-one-0123456789abcdef", nil)
	legacy := map[string][]byte{}
	for name, data := range first {
		if strings.Contains(name, "/revisions/") && bytes.Contains(data, []byte(secrets.HMACPrefix)) {
			i := bytes.Index(data, []byte(secrets.HMACPrefix))
			old := secrets.LegacyPrefix + unkeyedMask("app/db", "password", "hunter2")
			data = append(append(append([]byte(nil), data[:i]...), old...), data[i+len(secrets.HMACPrefix)+24:]...)
		}
		legacy[name] = data
	}
	if !bytes.Contains(legacy["llm/status.yaml"], []byte("revisionName")) || len(revisionFiles(legacy)) != 2 {
		t.Fatalf("the first run left %v", revisionFiles(legacy))
	}
	hasLegacy := false
	for _, data := range legacy {
		hasLegacy = hasLegacy || bytes.Contains(data, []byte(secrets.LegacyPrefix))
	}
	if !hasLegacy {
		t.Fatal("no revision was rewritten with an unkeyed mask")
	}
	after := runWithKey(t, "install-one-0123456789abcdef", legacy)
	if n, m := len(revisionFiles(after)), len(revisionFiles(legacy)); n != m+1 {
		t.Errorf("%d revision files after the upgrade, want %d (one new for the Secret's role)", n, m+1)
	}
}
