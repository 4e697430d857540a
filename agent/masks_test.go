package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/secrets"
)

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
