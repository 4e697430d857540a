package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
)

// TestStampSecretKeyed: a Secret's applied hash is keyed: the same for one
// key, another for another key, never the unkeyed sha256 of the object;
// without a Masker it carries none. Other objects keep the plain hash.
func TestStampSecretKeyed(t *testing.T) {
	key := func(k string) *secrets.Masker {
		m, err := secrets.NewMasker([]byte(k), secrets.MaskHMAC)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	stamped := func(kind string, m *secrets.Masker) (string, string) {
		o := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": "s", "namespace": "ns"},
			"stringData": map[string]any{"pw": "weak"},
		}}
		data, err := json.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if err := stamp(o, m); err != nil {
			t.Fatal(err)
		}
		return o.GetAnnotations()[object.AppliedHashAnnotation], hex.EncodeToString(sum[:10])
	}
	one, unkeyed := stamped("Secret", key("key-one-0123456789abcdef"))
	again, _ := stamped("Secret", key("key-one-0123456789abcdef"))
	other, _ := stamped("Secret", key("key-two-0123456789abcdef"))
	none, _ := stamped("Secret", nil)
	if one == "" || one != again || one == other || one == unkeyed || none != "" {
		t.Errorf("Secret hashes: one key %q and %q, another %q, unkeyed %q, no masker %q", one, again, other, unkeyed, none)
	}
	if cm, plain := stamped("ConfigMap", nil); cm != plain {
		t.Errorf("a ConfigMap's hash %q, want the plain hash %q", cm, plain)
	}
}
