package render

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/render/plan"
)

// TestBuildAllowed renders what the app config can switch on: an exec
// generator with enableExec, and remote bases from an allowed host, both
// an http(s) file and a git repository (served on loopback; kustomize
// clones it with the git program). None of them is cached: what they
// read is not in the repository's tree.
func TestBuildAllowed(t *testing.T) {
	t.Parallel()
	const remoteCM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: remote-file}\n"
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/cm.yaml" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(remoteCM))
	}))
	t.Cleanup(files.Close)
	bases := testgit.New(t, testgit.Options{}).MustRepo(t, "bases")
	if _, err := bases.Commit("main", "a base", map[string]string{
		"base/kustomization.yaml": "resources: [cm.yaml]\nnamePrefix: git-\n",
		"base/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: base}\n",
	}); err != nil {
		t.Fatal(err)
	}
	loopback := func(o *Options) { o.RemoteHosts = []string{"127.0.0.1"} }

	cases := []struct {
		name  string
		setup func(t *testing.T, root string)
		opts  func(*Options)
		want  []string
	}{
		{"exec generator with enableExec",
			func(t *testing.T, root string) { execGenerator(t, root, "app", "generated", "") },
			func(o *Options) { o.EnableExec = true }, []string{"ConfigMap/generated"}},
		{"remote file from an allowed host", func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "app/kustomization.yaml"), "resources:\n- "+files.URL+"/cm.yaml\n- local.yaml\n")
			writeFile(t, filepath.Join(root, "app/local.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: local}\n")
		}, loopback, []string{"ConfigMap/remote-file", "ConfigMap/local"}},
		{"remote git base from an allowed host", func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "app/kustomization.yaml"), "resources:\n- "+bases.URL()+"//base?ref=main\n")
		}, loopback, []string{"ConfigMap/git-base"}},
		{"remote git base behind a local base", func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "app/kustomization.yaml"), "resources: [../shared]\n")
			writeFile(t, filepath.Join(root, "shared/kustomization.yaml"), "resources:\n- "+bases.URL()+"//base?ref=main\n")
		}, loopback, []string{"ConfigMap/git-base"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "repo")
			tc.setup(t, root)
			opts := DefaultOptions()
			tc.opts(&opts)
			r := &Renderer{}
			for range 2 {
				res, err := r.Build(context.Background(), Source{Root: root, Index: indexTree(t, root)}, "app", opts)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, o := range res.Objects {
					got = append(got, plan.Describe(o))
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("objects (-want +got):\n%s", diff)
				}
				if res.Cached || res.Inputs != nil {
					t.Errorf("cached %v, inputs %v: a render that reads past the repository must not be cached", res.Cached, res.Inputs)
				}
			}
			if r.Builds() != 2 {
				t.Errorf("builds = %d, want 2", r.Builds())
			}
		})
	}
}
