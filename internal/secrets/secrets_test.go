package secrets

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func secret(pw string) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "s", "annotations": map[string]any{lastApplied: `{"stringData":{"pw":"` + pw + `"}}`, "keep": "me"}},
		"data":       map[string]any{"token": "aHVudGVyMg=="},
		"stringData": map[string]any{"pw": pw},
	}
}

func pw(m map[string]any) string    { return m["stringData"].(map[string]any)["pw"].(string) }
func token(m map[string]any) string { return m["data"].(map[string]any)["token"].(string) }

func masker(t *testing.T, key string, mode Mode) *Masker {
	t.Helper()
	m, err := NewMasker([]byte(key), mode)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// legacy is the unkeyed mask roleout wrote before keyed masks.
func legacy(salt, key, value string) string {
	sum := sha256.Sum256([]byte(salt + "/" + key + "=" + value))
	return hex.EncodeToString(sum[:12])
}

func TestMaskHMAC(t *testing.T) {
	one := masker(t, "0123456789abcdef0123456789abcdef", MaskHMAC)
	sameKey := masker(t, "0123456789abcdef0123456789abcdef", "")
	other := masker(t, "fedcba9876543210fedcba9876543210", MaskHMAC)
	a, b, c, d := secret("one"), secret("one"), secret("two"), secret("one")
	one.Mask(a, "ns/s")
	sameKey.Mask(b, "ns/s")
	one.Mask(c, "ns/s")
	other.Mask(d, "ns/s")
	for _, v := range []string{pw(a), token(a)} {
		if !strings.HasPrefix(v, HMACPrefix) || len(v) != len(HMACPrefix)+24 || strings.Contains(v, "one") || strings.Contains(v, "hunter2") {
			t.Errorf("masked value %q", v)
		}
	}
	if strings.Contains(pw(a), legacy("ns/s", "pw", "one")) || strings.Contains(token(a), legacy("ns/s", "token", "hunter2")) {
		t.Error("a keyed mask must not hold the unkeyed digest")
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("one key must mask the same (-first +second):\n%s", diff)
	}
	if pw(a) == pw(c) {
		t.Error("a changed value must mask differently")
	}
	if pw(a) == pw(d) || token(a) == token(d) {
		t.Error("another key must mask differently")
	}
	ann := a["metadata"].(map[string]any)["annotations"].(map[string]any)
	if strings.Contains(ann[lastApplied].(string), "one") || ann["keep"] != "me" {
		t.Errorf("annotations after masking: %v", ann)
	}
}

func TestMaskChangeMarkers(t *testing.T) {
	m := masker(t, "0123456789abcdef0123456789abcdef", MaskChangeMarkers)
	rec := secret("one")
	m.Mask(rec, "ns/s")
	if pw(rec) != Placeholder || token(rec) != Placeholder {
		t.Errorf("a change-marker record holds %q and %q, want %q", pw(rec), token(rec), Placeholder)
	}
	live, desired := secret("one"), secret("two")
	m.MaskPair(live, desired, "ns/s")
	if got := []string{pw(live), pw(desired), token(desired)}; !cmp.Equal(got, []string{Placeholder, Changed, Unchanged}) {
		t.Errorf("markers: %v", got)
	}
	keyed, again := secret("one"), secret("one")
	m.Keyed(keyed, "ns/s")
	masker(t, "0123456789abcdef0123456789abcdef", MaskHMAC).Mask(again, "ns/s")
	if pw(keyed) != pw(again) {
		t.Errorf("Keyed in change-marker mode is %q, want the HMAC %q", pw(keyed), pw(again))
	}
}

func TestNilMaskerAndSum(t *testing.T) {
	var m *Masker
	s := secret("one")
	m.Mask(s, "ns/s")
	if pw(s) != Placeholder || m.Sum("x", []byte("y")) != "" {
		t.Errorf("a nil Masker: %q, %q", pw(s), m.Sum("x", []byte("y")))
	}
	k := masker(t, "0123456789abcdef0123456789abcdef", MaskHMAC)
	if k.Sum("a", []byte("v")) == k.Sum("b", []byte("v")) || len(k.Sum("a", []byte("v"))) != 20 {
		t.Error("Sum must depend on the purpose and be 20 hex digits")
	}
	if _, err := NewMasker([]byte("short"), MaskHMAC); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("a short key: %v", err)
	}
	if _, err := NewMasker([]byte("0123456789abcdef"), "plain"); err == nil {
		t.Error("an unknown mode must be refused")
	}
	e1, e2 := Ephemeral(), Ephemeral()
	a, b := secret("one"), secret("one")
	e1.Mask(a, "ns/s")
	e2.Mask(b, "ns/s")
	if pw(a) == pw(b) || !IsMasked(pw(a)) {
		t.Errorf("two ephemeral keys gave %q and %q", pw(a), pw(b))
	}
}
