package plan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render"
)

// buildMultibase renders multibase's overlay, with origins or without.
func buildMultibase(t *testing.T, origins bool) []*unstructured.Unstructured {
	t.Helper()
	opts := render.DefaultOptions()
	opts.Origins = origins
	res, err := (&render.Renderer{}).Build(context.Background(), render.Source{Root: multibase}, "overlays/prod", opts)
	if err != nil {
		t.Fatal(err)
	}
	return res.Objects
}

// multibaseRoles are the config roles of a repository used as it is:
// one per base, by path, in upgrade order.
func multibaseRoles() []model.RoleSpec {
	var roles []model.RoleSpec
	for i, base := range []string{"database", "cache", "backend", "frontend"} {
		name := map[string]string{"database": "data"}[base]
		if name == "" {
			name = base
		}
		roles = append(roles, model.RoleSpec{Name: name, UpgradeOrder: intp(i + 1), Paths: []string{"bases/" + base}})
	}
	return roles
}

// TestBuildOrigins: a render with origins gives each object the
// repository path of the file it came from (the kustomization, for a
// generated ConfigMap), and no kustomize origin annotation.
func TestBuildOrigins(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	for _, o := range buildMultibase(t, true) {
		got[Describe(o)] = o.GetAnnotations()[object.SourcePathAnnotation]
		if _, ok := o.GetAnnotations()[originAnnotation]; ok {
			t.Errorf("%s carries %s", Describe(o), originAnnotation)
		}
	}
	want := map[string]string{
		"StatefulSet/shop/postgres": "bases/database/statefulset.yaml",
		"Service/shop/postgres":     "bases/database/service.yaml",
		"Deployment/shop/redis":     "bases/cache/deployment.yaml",
		"Service/shop/redis":        "bases/cache/service.yaml",
		"Deployment/shop/api":       "bases/backend/deployment.yaml",
		"Service/shop/api":          "bases/backend/service.yaml",
		"Deployment/shop/web":       "bases/frontend/deployment.yaml",
		"Service/shop/web":          "bases/frontend/service.yaml",
	}
	for k, v := range got {
		if strings.HasPrefix(k, "ConfigMap/shop/api-config-") {
			want[k] = "bases/backend/kustomization.yaml"
			if v != want[k] {
				t.Errorf("generated %s: source path %q, want its kustomization", k, v)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("source paths (-want +got):\n%s", diff)
	}
	for _, o := range buildMultibase(t, false) {
		if len(o.GetAnnotations()) > 0 {
			t.Errorf("without origins, %s has annotations %v", Describe(o), o.GetAnnotations())
		}
	}
}

// TestPathRolesMultibase: config roles by path order a repository used as
// it is into four waves, and the plan's objects and hashes are those of a
// render without origins planned with equivalent label selectors.
func TestPathRolesMultibase(t *testing.T) {
	t.Parallel()
	byPath, err := New(buildMultibase(t, true), Options{App: "shop", Roles: multibaseRoles()}, Facts{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1: data=update", "2: cache=update", "3: backend=update", "4: frontend=update"}
	if diff := cmp.Diff(want, shapeOf(byPath).Waves); diff != "" {
		t.Fatalf("waves (-want +got):\n%s", diff)
	}
	var bySelector []model.RoleSpec
	for i, app := range []string{"postgres", "redis", "api", "web"} {
		spec := multibaseRoles()[i]
		spec.Paths, spec.Selector = nil, labels.SelectorFromSet(labels.Set{"app": app})
		if app == "api" {
			spec.Selector = nil
			spec.Names = []string{"api", "api-config-*"} // the generated ConfigMap has no label
		}
		bySelector = append(bySelector, spec)
	}
	plain, err := New(buildMultibase(t, false), Options{App: "shop", Roles: bySelector}, Facts{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(shapeOf(plain), shapeOf(byPath)); diff != "" {
		t.Fatalf("plans differ (-selectors +paths):\n%s", diff)
	}
	for i, r := range byPath.Roles() {
		p := plain.Roles()[i]
		if r.Hash != p.Hash || r.Decision.Revision.Name != p.Decision.Revision.Name {
			t.Errorf("role %s: hash %s with origins, %s without", r.Name, r.Hash, p.Hash)
		}
		if diff := cmp.Diff(p.Objects, r.Objects); diff != "" {
			t.Errorf("role %s objects (-without +with origins):\n%s", r.Name, diff)
		}
	}
	// A role that names a base the overlay does not use is an error.
	roles := append(multibaseRoles(), model.RoleSpec{Name: "queue", UpgradeOrder: intp(5), Paths: []string{"bases/queue"}})
	if _, err := New(buildMultibase(t, true), Options{App: "shop", Roles: roles}, Facts{}); err == nil ||
		!strings.Contains(err.Error(), "role queue matches no object: paths [bases/queue] matched nothing in the render") {
		t.Errorf("a role of an unused base: %v", err)
	}
	// Names alone order it as well.
	names := []model.RoleSpec{{Name: "data", UpgradeOrder: intp(1), Names: []string{"postgres*"}}, {Name: "front", UpgradeOrder: intp(2), Names: []string{"shop/web"}}}
	p, err := New(buildMultibase(t, true), Options{App: "shop", Roles: names}, Facts{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"0: default=update", "1: data=update", "2: front=update"}, shapeOf(p).Waves); diff != "" {
		t.Errorf("waves by names (-want +got):\n%s", diff)
	}
}

// TestBuildOriginsUserBuildMetadata: the overlay's own buildMetadata is
// kept: originAnnotations asked for by the user stay on the objects (as
// kustomize build gives them), and other options still apply.
func TestBuildOriginsUserBuildMetadata(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(multibase)); err != nil {
		t.Fatal(err)
	}
	kust := filepath.Join(root, "overlays/prod/kustomization.yaml")
	data, err := os.ReadFile(kust)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		buildMetadata string
		keepOrigin    bool
		label         string
	}{
		{"[originAnnotations]", true, ""},
		{"[managedByLabel]", false, "app.kubernetes.io/managed-by"},
		{"[]", false, ""},
	} {
		t.Run(tc.buildMetadata, func(t *testing.T) {
			if err := os.WriteFile(kust, append([]byte("buildMetadata: "+tc.buildMetadata+"\n"), data...), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := render.DefaultOptions()
			opts.Origins = true
			res, err := (&render.Renderer{}).Build(context.Background(), render.Source{Root: root}, "overlays/prod", opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range res.Objects {
				origin, kept := o.GetAnnotations()[originAnnotation]
				if kept != tc.keepOrigin {
					t.Errorf("%s: origin annotation %q, want kept %v", Describe(o), origin, tc.keepOrigin)
				}
				if kept && !strings.Contains(origin, "../../bases/") {
					t.Errorf("%s: origin %q is not kustomize's, relative to the overlay", Describe(o), origin)
				}
				if _, ok := o.GetLabels()[tc.label]; tc.label != "" && !ok {
					t.Errorf("%s lacks label %s the overlay asked for", Describe(o), tc.label)
				}
			}
			p, err := New(res.Objects, Options{App: "shop", Roles: multibaseRoles()}, Facts{})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(p.Waves); got != 4 {
				t.Errorf("%d waves, want 4", got)
			}
		})
	}
}

// TestBuildOriginsSymlinks: an overlay reached through a symlinked
// directory, and one whose kustomization file is a symlink, record the
// same source paths.
func TestBuildOriginsSymlinks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(multibase)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("prod", filepath.Join(root, "overlays/live")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "overlays/linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../prod/kustomization.yaml", filepath.Join(root, "overlays/linked/kustomization.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, overlay := range []string{"overlays/live", "overlays/linked"} {
		opts := render.DefaultOptions()
		opts.Origins = true
		res, err := (&render.Renderer{}).Build(context.Background(), render.Source{Root: root}, overlay, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range res.Objects {
			if o.GetName() == "postgres" && o.GetAnnotations()[object.SourcePathAnnotation] != "bases/database/"+strings.ToLower(o.GetKind())+".yaml" {
				t.Errorf("%s: %s has source path %q", overlay, Describe(o), o.GetAnnotations()[object.SourcePathAnnotation])
			}
		}
		if _, err := New(res.Objects, Options{App: "shop", Roles: multibaseRoles()}, Facts{}); err != nil {
			t.Errorf("%s: %v", overlay, err)
		}
	}
}

// multibase is render/testdata/multibase: four bases without roleout
// annotations or tier labels, and overlays/prod referencing them all.
const multibase = "../testdata/multibase"

// originAnnotation is kustomize's origin annotation, which a render with
// origins removes unless the overlay asked for it.
const originAnnotation = "config.kubernetes.io/origin"
