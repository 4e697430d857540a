package status

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/render/revision"
)

func TestRevisionPath(t *testing.T) {
	cases := []struct {
		name, app, role, rev string
		want                 string // "" refuses
	}{
		{name: "revision of a role", app: "web", role: "db", rev: "web-db-5d8f9c", want: "web/revisions/db/web-db-5d8f9c.yaml"},
		{name: "long revision name", app: strings.Repeat("a", 63), role: strings.Repeat("r", 63), rev: strings.Repeat("a", 63) + "-" + strings.Repeat("r", 63) + "-5d8f9c",
			want: strings.Repeat("a", 63) + "/revisions/" + strings.Repeat("r", 63) + "/" + strings.Repeat("a", 63) + "-" + strings.Repeat("r", 63) + "-5d8f9c.yaml"},
		{name: "role into another app", app: "web", role: "../other-app", rev: "x"},
		{name: "role with a slash", app: "web", role: "a/b", rev: "x"},
		{name: "role dot-dot", app: "web", role: "..", rev: "x"},
		{name: "empty role", app: "web", role: "", rev: "x"},
		{name: "role too long", app: "web", role: strings.Repeat("r", 64), rev: "x"},
		{name: "revision into another app", app: "web", role: "db", rev: "../../../other-app/status"},
		{name: "revision with a slash", app: "web", role: "db", rev: "a/b"},
		{name: "empty revision", app: "web", role: "db", rev: ""},
		{name: "app with a slash", app: "web/x", role: "db", rev: "x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RevisionPath(tc.app, tc.role, tc.rev)
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), "refuse a status branch path") {
					t.Errorf("got %q, %v; want it refused", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestParseRefusesMisplacedRevisions: a revision file on the status
// branch (which anyone with push rights can write) whose role directory
// is not a DNS label, or whose revision names another file, is an error
// naming the file: its name would otherwise reach the paths written next.
func TestParseRefusesMisplacedRevisions(t *testing.T) {
	revFile := func(t *testing.T, name string) []byte {
		t.Helper()
		cr, err := revision.RoleRevision{Name: name, Hash: "5d8f9c", Number: 1}.ControllerRevision("web", "db", "")
		if err != nil {
			t.Fatal(err)
		}
		data, err := yaml.Marshal(cr)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	cases := []struct {
		name, file, rev string
		wantErr         string // "" loads
	}{
		{name: "in place", file: "web/revisions/db/web-db-5d8f9c.yaml", rev: "web-db-5d8f9c"},
		{name: "name that leaves the app", file: "web/revisions/db/web-db-5d8f9c.yaml", rev: "../../../other-app/status",
			wantErr: `status branch file web/revisions/db/web-db-5d8f9c.yaml: refuse a status branch path with revision "../../../other-app/status"`},
		{name: "name of another file", file: "web/revisions/db/web-db-5d8f9c.yaml", rev: "web-db-other",
			wantErr: "holds revision web-db-other, whose file is web/revisions/db/web-db-other.yaml"},
		{name: "role directory that is no DNS label", file: "web/revisions/DB/web-db-5d8f9c.yaml", rev: "web-db-5d8f9c",
			wantErr: `refuse a status branch path with role "DB"`},
		{name: "nested directory", file: "web/revisions/db/x/web-db-5d8f9c.yaml", rev: "web-db-5d8f9c",
			wantErr: "whose file is web/revisions/db/web-db-5d8f9c.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(Read{Files: map[string][]byte{tc.file: revFile(t, tc.rev)}}, "web")
			if tc.wantErr == "" {
				if err != nil || len(p.History["db"]) != 1 {
					t.Fatalf("got %v, %v; want one revision of role db", p, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

// TestPreviewName: the common refs keep their readable names, and refs
// that would read the same get names of their own.
func TestPreviewName(t *testing.T) {
	if got := PreviewName("refs/pull/7/head"); got != "pull-7-head" {
		t.Errorf("PreviewName(refs/pull/7/head) = %q, want pull-7-head", got)
	}
	if got := PreviewName("refs/merge-requests/3/head"); !strings.HasPrefix(got, "merge-requests-3-head~") || len(got) != len("merge-requests-3-head~")+16 {
		t.Errorf("PreviewName(refs/merge-requests/3/head) = %q, want the name, ~ and 16 hex digits", got)
	}
	seen := map[string]string{}
	for _, ref := range []string{"refs/pull/1/head", "refs/pull-1/head", "refs/pull/1-head", "refs/pull-1-head", "refs/heads/a-b", "refs/heads/a/b"} {
		name := PreviewName(ref)
		if other, ok := seen[name]; ok {
			t.Errorf("%s and %s share the preview name %q", other, ref, name)
		}
		seen[name] = ref
	}
}
