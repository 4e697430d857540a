package revision

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
)

// MaskPrefix starts every masked Secret value, of every format.
const MaskPrefix = secrets.Prefix

// IsSecret reports whether o is a core v1 Secret.
func IsSecret(o *unstructured.Unstructured) bool {
	return secrets.IsSecret(o.GetAPIVersion(), o.GetKind())
}

// Record returns o as a role revision records it: normalised, and for a
// Secret with every data and stringData value replaced by what m shows of
// it (a keyed digest, or a change-marker placeholder; see
// internal/secrets). Secret values, and unkeyed digests of them, never
// reach the status branch.
func Record(o *unstructured.Unstructured, m *secrets.Masker) map[string]any {
	n := Normalize(o)
	if IsSecret(o) {
		m.Mask(n, o.GetNamespace()+"/"+o.GetName())
		sopsMasks(n, o)
	}
	return n
}

// sopsMasks replaces, in the normalised Secret n, the value of each key
// object.SopsAnnotation fingerprints with that fingerprint: a Secret
// decrypted from SOPS is recorded and hashed by its ciphertext, which a
// preview reads as well, never by its plaintext.
func sopsMasks(n map[string]any, o *unstructured.Unstructured) {
	raw := o.GetAnnotations()[object.SopsAnnotation]
	if raw == "" {
		return
	}
	var fps map[string]string
	if err := json.Unmarshal([]byte(raw), &fps); err != nil {
		return
	}
	for _, field := range []string{"data", "stringData"} {
		values, _ := n[field].(map[string]any)
		for k := range values {
			if fp, ok := fps[k]; ok {
				values[k] = MaskPrefix + "sops-" + fp
			}
		}
	}
}

// identity returns o as template hashes see it: normalised, and for a
// Secret with every value replaced by its keyed digest under m, whatever
// m's mode. It equals Record in MaskHMAC mode.
func identity(o *unstructured.Unstructured, m *secrets.Masker) map[string]any {
	n := Normalize(o)
	if IsSecret(o) {
		m.Keyed(n, o.GetNamespace()+"/"+o.GetName())
		sopsMasks(n, o)
	}
	return n
}

// recordAll returns the records of objs sorted by group, kind,
// namespace and name.
func recordAll(objs []*unstructured.Unstructured, m *secrets.Masker) []map[string]any {
	out := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		out = append(out, Record(o, m))
	}
	sortObjects(out)
	return out
}

// identityAll returns the identity forms of objs sorted by group, kind,
// namespace and name.
func identityAll(objs []*unstructured.Unstructured, m *secrets.Masker) []map[string]any {
	out := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		out = append(out, identity(o, m))
	}
	sortObjects(out)
	return out
}

// hasSecret reports whether objs hold a Secret.
func hasSecret(objs []*unstructured.Unstructured) bool {
	for _, o := range objs {
		if IsSecret(o) {
			return true
		}
	}
	return false
}
