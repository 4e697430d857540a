package agent

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/render/revision"
)

// TestRollbackPathRole: a rollback of a role that claims its objects by
// path restores the recorded objects into that role (a revision records
// no source paths), as a rollback.
func TestRollbackPathRole(t *testing.T) {
	render1 := func(image string) []*unstructured.Unstructured {
		mk := func(name, img, src string) *unstructured.Unstructured {
			o := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": name, "namespace": "shop",
					"annotations": map[string]any{object.SourcePathAnnotation: src}},
				"spec": map[string]any{
					"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
					"template": map[string]any{
						"metadata": map[string]any{"labels": map[string]any{"app": name}},
						"spec":     map[string]any{"containers": []any{map[string]any{"name": name, "image": img}}}}},
			}}
			return o
		}
		return []*unstructured.Unstructured{mk("postgres", image, "bases/database/d.yaml"), mk("redis", "redis:7", "bases/cache/d.yaml")}
	}
	one, two := 1, 2
	opts := plan.Options{App: "shop", Roles: []model.RoleSpec{
		{Name: "data", UpgradeOrder: &one, Paths: []string{"bases/database"}},
		{Name: "cache", UpgradeOrder: &two, Paths: []string{"bases/cache"}},
	}}
	history := map[string][]revision.RoleRevision{}
	for _, image := range []string{"postgres:15", "postgres:16"} {
		p, err := plan.New(render1(image), opts, plan.Facts{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Roles() {
			history[r.Name] = r.History
		}
		opts.History = history
	}
	first := history["data"][0]
	objs := replaceRole(render1("postgres:16"), "data", map[object.Ref]bool{}, first.UnstructuredObjects())
	p, err := plan.New(objs, opts, plan.Facts{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Roles() {
		switch r.Name {
		case "data":
			if r.Decision.Action != revision.Rollback || len(r.Objects) != 1 || r.Hash != first.Hash {
				t.Errorf("role data: %s to %s with %d objects; want a rollback to %s", r.Decision.Action, r.Hash, len(r.Objects), first.Hash)
			}
			if _, ok := r.Objects[0].GetAnnotations()[object.RestoredRoleAnnotation]; ok {
				t.Error("the restored object is planned with its internal annotation")
			}
		case "cache":
			if r.Changed() {
				t.Errorf("role cache: %s, want unchanged", r.Decision.Action)
			}
		default:
			t.Errorf("unexpected role %s with %d objects", r.Name, len(r.Objects))
		}
	}
}
