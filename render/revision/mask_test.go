package revision

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/internal/testobjects"
)

// testMasker is one install's masker.
var testMasker = mustMasker("install-one-key-0123456789abcdef", secrets.MaskHMAC)

func mustMasker(key string, mode secrets.Mode) *secrets.Masker {
	m, err := secrets.NewMasker([]byte(key), mode)
	if err != nil {
		panic(err)
	}
	return m
}

func secretRole(t *testing.T, value string) []*unstructured.Unstructured {
	t.Helper()
	return testobjects.Parse(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: web}\nstringData: {password: "+value+"}\n")
}

// legacyMask is the unkeyed mask roleout wrote before keyed masks.
func legacyMask(value string) string {
	sum := sha256.Sum256([]byte("web/creds/password=" + value))
	return hex.EncodeToString(sum[:12])
}

// TestKeyedIdentities: one key gives the same record, hash and name on
// every run; another key (another install) gives others; neither the
// value nor its unkeyed digest appears in what is recorded.
func TestKeyedIdentities(t *testing.T) {
	other := mustMasker("install-two-key-fedcba9876543210", secrets.MaskHMAC)
	run := func(m *secrets.Masker) (Decision, string) {
		d, _, err := Decide("web", "db", secretRole(t, "weak"), nil, "r1", m)
		if err != nil {
			t.Fatal(err)
		}
		h, err := TemplateHash(secretRole(t, "weak"), m)
		if err != nil {
			t.Fatal(err)
		}
		return d, h
	}
	first, h1 := run(testMasker)
	again, h2 := run(mustMasker("install-one-key-0123456789abcdef", secrets.MaskHMAC))
	second, h3 := run(other)
	if first.Revision.Name != again.Revision.Name || h1 != h2 || !sameObjects(first.Revision.Objects, again.Revision.Objects) {
		t.Errorf("one key, two runs: %s/%s and %s/%s", first.Revision.Name, h1, again.Revision.Name, h2)
	}
	if first.Revision.Name == second.Revision.Name || h1 == h3 || sameObjects(first.Revision.Objects, second.Revision.Objects) {
		t.Errorf("two keys gave the same identity %s", first.Revision.Name)
	}
	if h1 != first.Revision.Hash {
		t.Errorf("TemplateHash %s, revision hash %s", h1, first.Revision.Hash)
	}
	cr, err := first.Revision.ControllerRevision("web", "db", "ns")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"weak", legacyMask("weak")} {
		if strings.Contains(string(cr.Data.Raw), bad) {
			t.Errorf("the ControllerRevision holds %q: %s", bad, cr.Data.Raw)
		}
	}
	if !strings.Contains(string(cr.Data.Raw), secrets.HMACPrefix) {
		t.Errorf("no keyed mask in %s", cr.Data.Raw)
	}
}

// TestChangeMarkerRecords: records hold no digest, yet a changed value
// still makes a new revision and an unchanged one does not.
func TestChangeMarkerRecords(t *testing.T) {
	m := mustMasker("install-one-key-0123456789abcdef", secrets.MaskChangeMarkers)
	d1, hist, err := Decide("web", "db", secretRole(t, "one"), nil, "r1", m)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(d1.Revision.Objects)
	if !strings.Contains(string(data), secrets.Placeholder) || strings.Contains(string(data), secrets.HMACPrefix) || strings.Contains(string(data), "one") {
		t.Errorf("a change-marker record: %s", data)
	}
	same, _, _ := Decide("web", "db", secretRole(t, "one"), hist, "r2", m)
	changed, hist2, _ := Decide("web", "db", secretRole(t, "two"), hist, "r2", m)
	if same.Action != Unchanged || changed.Action != Update {
		t.Errorf("same value: %s (want unchanged); new value: %s (want update)", same.Action, changed.Action)
	}
	back, _, _ := Decide("web", "db", secretRole(t, "one"), hist2, "r3", m)
	if back.Action != Rollback || back.Revision.Name != d1.Revision.Name {
		t.Errorf("back to the first value: %s %s, want rollback to %s", back.Action, back.Revision.Name, d1.Revision.Name)
	}
}

// TestLegacyRecordUpgrades: a revision recorded with an unkeyed mask is
// read as any other; the next render makes a new revision (its Secret is
// re-applied) without an error.
func TestLegacyRecordUpgrades(t *testing.T) {
	old := RoleRevision{Name: "web-db-old", Hash: "old", Number: 3, Objects: []map[string]any{{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "creds", "namespace": "web"},
		"stringData": map[string]any{"password": secrets.LegacyPrefix + legacyMask("weak")},
	}}}
	if got := old.MaskedSecrets(); len(got) != 1 {
		t.Errorf("MaskedSecrets of a legacy record = %v", got)
	}
	d, hist, err := Decide("web", "db", secretRole(t, "weak"), []RoleRevision{old}, "r4", testMasker)
	if err != nil || d.Action != Update || d.Revision.Number != 4 || len(hist) != 2 {
		t.Errorf("after the upgrade: %+v, %d revisions, %v", d, len(hist), err)
	}
}
