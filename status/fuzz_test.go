package status

import (
	"strings"
	"testing"
)

// FuzzParseApp feeds the status file parser arbitrary input: it must
// never panic, and an error must say how to fix the file.
func FuzzParseApp(f *testing.F) {
	f.Add([]byte("apiVersion: roleout.dev/v1alpha1\nkind: AppStatus\napp: web\nroles: [{name: db, revision: 1, result: Applied}]\n"))
	f.Add([]byte("kind: AppStatus\nroles: {not: a list}\n"))
	f.Add([]byte("- a\n- b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ParseApp(data, "web/status.yaml"); err != nil && !strings.Contains(err.Error(), "web/status.yaml") {
			t.Errorf("error does not name the file: %v", err)
		}
	})
}
