package decrypt

import (
	"encoding/base64"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/testobjects"
	"github.com/roleout/roleout/internal/testsops"
)

const secret = `apiVersion: v1
kind: Secret
metadata: {name: db, namespace: shop}
type: Opaque
stringData: {password: hunter2}
data: {token: c2VjcmV0LXRva2Vu}
`

// TestSecretEncryptedWhole: a Secret the sops program encrypted whole
// (data and stringData) decrypts with the app's age key into the
// plaintext Secret, without SOPS's metadata; with another key it is an
// error naming the object and the recipient, never a value.
func TestSecretEncryptedWhole(t *testing.T) {
	key := testsops.NewKey(t)
	enc := testobjects.One(t, string(testsops.EncryptSecret(t, key.Recipient, secret)))
	if !Encrypted(enc) {
		t.Fatal("the encrypted Secret is not seen as encrypted")
	}
	keys, err := ParseKeys(map[string][]byte{"age.agekey": []byte(key.Identity)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Objects([]*unstructured.Unstructured{enc}, keys)
	if err != nil {
		t.Fatal(err)
	}
	d := got[0]
	if _, ok := d.Object["sops"]; ok {
		t.Error("the decrypted Secret still carries sops")
	}
	pw, _, _ := unstructured.NestedString(d.Object, "stringData", "password")
	tok, _, _ := unstructured.NestedString(d.Object, "data", "token")
	if pw != "hunter2" || tok != "c2VjcmV0LXRva2Vu" || d.GetName() != "db" {
		t.Errorf("decrypted: password %q, token %q, name %q", pw, tok, d.GetName())
	}

	other, err := ParseKeys(map[string][]byte{"other.agekey": []byte(testsops.NewKey(t).Identity)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Objects([]*unstructured.Unstructured{enc}, other)
	if err == nil || !strings.Contains(err.Error(), "Secret/shop/db: decrypt: no age key of the app opens it") || !strings.Contains(err.Error(), key.Recipient) {
		t.Errorf("another key: %v", err)
	}
	if _, err := Objects([]*unstructured.Unstructured{enc}, nil); err == nil || !strings.Contains(err.Error(), "names no decryption key") {
		t.Errorf("no key: %v", err)
	}
}

// TestGeneratedSecretValues: a Secret whose data values are SOPS
// documents (a secretGenerator's files of an encrypted dotenv and YAML
// file) decrypts value by value, in the format of each key's name.
func TestGeneratedSecretValues(t *testing.T) {
	key := testsops.NewKey(t)
	env := testsops.Encrypt(t, key.Recipient, "app.env", []byte("USER=admin\nPASS=s3cret\n"))
	yml := testsops.Encrypt(t, key.Recipient, "config.yaml", []byte("db:\n  password: hunter2\n"))
	gen := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "gen", "namespace": "shop"},
		"data":     map[string]any{"app.env": base64.StdEncoding.EncodeToString(env), "config.yaml": base64.StdEncoding.EncodeToString(yml), "plain": "cGxhaW4="}}}
	keys, err := ParseKeys(map[string][]byte{"k": []byte(key.Identity)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Objects([]*unstructured.Unstructured{gen}, keys)
	if err != nil {
		t.Fatal(err)
	}
	data, _, _ := unstructured.NestedStringMap(got[0].Object, "data")
	for k, want := range map[string]string{"app.env": "USER=admin\nPASS=s3cret\n", "config.yaml": "db:\n    password: hunter2\n", "plain": "plain"} {
		b, _ := base64.StdEncoding.DecodeString(data[k])
		if string(b) != want {
			t.Errorf("%s = %q, want %q", k, b, want)
		}
	}
}

// TestOnlySecrets: SOPS metadata on another kind is refused (no
// transformer may carry plaintext out of a Secret), as are keys that are
// not age identities.
func TestOnlySecrets(t *testing.T) {
	key := testsops.NewKey(t)
	cm := testobjects.One(t, string(testsops.Encrypt(t, key.Recipient, "cm.yaml",
		[]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\ndata: {a: b}\n"), "--encrypted-regex", "^data$")))
	keys, err := ParseKeys(map[string][]byte{"k": []byte(key.Identity)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Objects([]*unstructured.Unstructured{cm}, keys); err == nil || !strings.Contains(err.Error(), "ConfigMap/shop/c: carries SOPS metadata but is no Secret") {
		t.Errorf("an encrypted ConfigMap: %v", err)
	}
	for _, bad := range []string{"", "# nothing\n", "AGE-PLUGIN-YUBIKEY-1XYZ\n", "AGE-SECRET-KEY-1NOTAKEY\n"} {
		if _, err := ParseKeys(map[string][]byte{"bad.agekey": []byte(bad)}); err == nil || strings.Contains(err.Error(), "NOTAKEY") {
			t.Errorf("ParseKeys(%q) = %v; want an error that quotes no key", bad, err)
		}
	}
}
