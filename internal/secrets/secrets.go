package secrets

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// Prefix starts every masked value.
const Prefix = "masked:sha256:"

// lastApplied is kubectl's client-side-apply record, which copies the
// values.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// IsSecret reports whether an object's apiVersion and kind are a core
// Secret's.
func IsSecret(apiVersion, kind string) bool { return apiVersion == "v1" && kind == "Secret" }

// Mask replaces, in place, each value of a Secret's data (base64-decoded
// first) and stringData with Prefix and a digest of salt, the key and the
// value, and kubectl's last-applied annotation with a placeholder. obj is
// the object's content as a JSON map.
func Mask(obj map[string]any, salt string) {
	for _, field := range []string{"data", "stringData"} {
		values, ok := obj[field].(map[string]any)
		if !ok {
			continue
		}
		for k, v := range values {
			s, _ := v.(string)
			if field == "data" {
				if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
					s = string(raw)
				}
			}
			sum := sha256.Sum256([]byte(salt + "/" + k + "=" + s))
			values[k] = Prefix + hex.EncodeToString(sum[:12])
		}
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			if _, ok := ann[lastApplied]; ok {
				ann[lastApplied] = Prefix + "last-applied-configuration"
			}
		}
	}
}
