package control

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultMaskKeySecret, Namespace: "roleout"}, Data: map[string][]byte{MaskKeyField: winner}}
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
	m, err := LoadMasker(context.Background(), config.Masks{KeyFile: good}, kube, "roleout")
	want, _ := secrets.NewMasker([]byte("0123456789abcdef0123456789abcdef"), secrets.MaskHMAC)
	if err != nil || m.Sum("x", nil) != want.Sum("x", nil) {
		t.Errorf("key file masker: %v", err)
	}
	if len(kube.Actions()) != 0 {
		t.Errorf("a key file must not touch the cluster: %v", kube.Actions())
	}
	if _, err := LoadMasker(context.Background(), config.Masks{KeyFile: short}, nil, ""); err == nil || !strings.Contains(err.Error(), "masks: mask key has 3 bytes") {
		t.Errorf("a short key file: %v", err)
	}
}
