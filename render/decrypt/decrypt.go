package decrypt

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"filippo.io/age"
	sopsage "github.com/getsops/sops/v3/age"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
)

// Keys are the age identities an app's Secrets are decrypted with.
type Keys struct {
	ids sopsage.ParsedIdentities
}

// maxKeyBytes bounds one key file or Secret entry.
const maxKeyBytes = 64 << 10

// ParseKeys reads age identities (AGE-SECRET-KEY-1… lines; # comments
// and blank lines skipped) from each of sources, named for errors. A
// source with no identity, or with a plugin identity (which would run a
// program), is an error.
func ParseKeys(sources map[string][]byte) (*Keys, error) {
	k := &Keys{}
	for name, data := range sources {
		if len(data) > maxKeyBytes {
			return nil, fmt.Errorf("age key %s is larger than %d bytes", name, maxKeyBytes)
		}
		ids, err := age.ParseIdentities(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("age key %s: %v (write one AGE-SECRET-KEY-1… per line, as age-keygen does)", name, redact(err))
		}
		k.ids = append(k.ids, ids...)
	}
	if len(k.ids) == 0 {
		return nil, errors.New("no age key: decryption names no key file or Secret entry")
	}
	return k, nil
}

// redact keeps a key parser's error from quoting a key's line.
func redact(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "AGE-"); i >= 0 {
		return msg[:i] + "[redacted]"
	}
	return msg
}

// Encrypted reports whether o carries SOPS metadata: a top-level sops
// field, or, for a Secret, a data value that is a SOPS document.
func Encrypted(o *unstructured.Unstructured) bool {
	if _, ok := o.Object["sops"]; ok {
		return true
	}
	if !isSecret(o) {
		return false
	}
	data, _, _ := unstructured.NestedStringMap(o.Object, "data")
	for _, v := range data {
		if b, err := base64.StdEncoding.DecodeString(v); err == nil {
			if _, ok := marker(b); ok {
				return true
			}
		}
	}
	return false
}

func isSecret(o *unstructured.Unstructured) bool {
	return o.GetKind() == "Secret" && o.GetAPIVersion() == "v1"
}

// Objects returns objs with every encrypted Secret decrypted with keys
// (a copy; objs is not changed). keys may be nil when no object is
// encrypted; an encrypted one then says that the app names no key.
func Objects(objs []*unstructured.Unstructured, keys *Keys) ([]*unstructured.Unstructured, error) {
	out := make([]*unstructured.Unstructured, len(objs))
	var errs []error
	for i, o := range objs {
		out[i] = o
		if !Encrypted(o) {
			continue
		}
		switch {
		case !isSecret(o):
			errs = append(errs, fmt.Errorf("%s: carries SOPS metadata but is no Secret: roleout decrypts Secrets only (so no transformer can move plaintext into another kind); encrypt it as a Secret", object.RefOf(o).String()))
			continue
		case keys == nil:
			errs = append(errs, fmt.Errorf("%s: is SOPS-encrypted and the app names no decryption key: set decryption (keyFiles or keySecret)", object.RefOf(o).String()))
			continue
		}
		d, err := keys.secret(o)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: decrypt: %w", object.RefOf(o).String(), err))
			continue
		}
		out[i] = d
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// Fingerprints returns, for an encrypted Secret, each data and
// stringData key's fingerprint: a digest of the key's ciphertext as git
// holds it (24 hex digits of SHA-256 over the object, the key and the
// ciphertext). A rollout and a preview compute the same from the same
// commit, and nothing of the plaintext is in it.
func Fingerprints(o *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	for _, field := range []string{"data", "stringData"} {
		values, _, _ := unstructured.NestedStringMap(o.Object, field)
		for k, v := range values {
			sum := sha256.Sum256([]byte(o.GetNamespace() + "/" + o.GetName() + "/" + field + "/" + k + "=" + v))
			out[k] = hex.EncodeToString(sum[:12])
		}
	}
	return out
}

// Sealed is the placeholder value of every key of a Secret that is not
// decrypted (a preview's).
const Sealed = "sops-encrypted"

// Seal returns an encrypted Secret as a preview shows it without
// decrypting: SOPS's metadata removed, every data and stringData value
// Sealed.
func Seal(o *unstructured.Unstructured) *unstructured.Unstructured {
	c := o.DeepCopy()
	delete(c.Object, "sops")
	for _, field := range []string{"data", "stringData"} {
		values, ok, _ := unstructured.NestedStringMap(c.Object, field)
		if !ok {
			continue
		}
		for k := range values {
			values[k] = Sealed
			if field == "data" {
				values[k] = base64.StdEncoding.EncodeToString([]byte(Sealed))
			}
		}
		_ = unstructured.SetNestedStringMap(c.Object, values, field)
	}
	return c
}
