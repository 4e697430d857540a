package plan

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// FuzzNewPlan plans objects whose role and upgrade-order annotations are
// arbitrary: planning must never panic, and a plan it returns must have
// its waves in ascending upgradeOrder with every object in exactly one
// role.
func FuzzNewPlan(f *testing.F) {
	f.Add("db", "1", "api", "2", "", "")
	f.Add("a", "-1", "a", "2", "default", "x")
	f.Add("", "", "", "", "", "")
	f.Add("r", "99999999999999999999", "r", " 3 ", "s", "0")
	f.Fuzz(func(t *testing.T, r1, o1, r2, o2, r3, o3 string) {
		var objs []*unstructured.Unstructured
		for i, ann := range [][2]string{{r1, o1}, {r2, o2}, {r3, o3}} {
			o := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": string(rune('a' + i)), "namespace": "ns"},
			}}
			a := map[string]string{}
			if ann[0] != "" {
				a[object.RoleAnnotation] = ann[0]
			}
			if ann[1] != "" {
				a[object.UpgradeOrderAnnotation] = ann[1]
			}
			o.SetAnnotations(a)
			objs = append(objs, o)
		}
		p, err := New(objs, Options{App: "fuzz"}, Facts{})
		if err != nil {
			return
		}
		count := 0
		for i, w := range p.Waves {
			if i > 0 && w.UpgradeOrder <= p.Waves[i-1].UpgradeOrder {
				t.Errorf("waves out of order: %d after %d", w.UpgradeOrder, p.Waves[i-1].UpgradeOrder)
			}
			for _, r := range w.Roles {
				count += len(r.Objects)
				if r.UpgradeOrder < 0 {
					t.Errorf("role %s has negative upgradeOrder %d", r.Name, r.UpgradeOrder)
				}
			}
		}
		if count != len(objs) {
			t.Errorf("%d objects planned, want %d", count, len(objs))
		}
	})
}

// FuzzRoleAnnotations fuzzes the role and upgrade-order annotations
// together with the config's role specs and the unorderedRoles policy:
// planning never panics, an error names a role or an object, and a plan
// puts every object in the role its annotation names, with one
// upgradeOrder per role.
func FuzzRoleAnnotations(f *testing.F) {
	f.Add("prefill", "1", "decode", "2", "decode", 3, true)
	f.Add("a", "x", "b", "", "c", -1, false)
	f.Add("", "0", "", "007", "zz", 0, true)
	f.Add("r", "+4", "r", "4", "r", 4, false)
	f.Fuzz(func(t *testing.T, r1, o1, r2, o2, specRole string, specOrder int, last bool) {
		var objs []*unstructured.Unstructured
		for i, ann := range [][2]string{{r1, o1}, {r2, o2}} {
			o := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": string(rune('a' + i)), "namespace": "ns", "labels": map[string]any{"tier": "x"}},
			}}
			a := map[string]string{}
			if ann[0] != "" {
				a[object.RoleAnnotation] = ann[0]
			}
			if ann[1] != "" {
				a[object.UpgradeOrderAnnotation] = ann[1]
			}
			o.SetAnnotations(a)
			objs = append(objs, o)
		}
		opts := Options{App: "fuzz", UnorderedRoles: model.UnorderedFirst}
		if last {
			opts.UnorderedRoles = model.UnorderedLast
		}
		if specRole != "" {
			order := specOrder
			opts.Roles = []model.RoleSpec{{Name: specRole, UpgradeOrder: &order}}
		}
		p, err := New(objs, opts, Facts{})
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "role") && !strings.Contains(msg, "Deployment/") {
				t.Errorf("error names neither a role nor an object: %v", err)
			}
			return
		}
		for _, r := range p.Roles() {
			for _, o := range r.Objects {
				if want := o.GetAnnotations()[object.RoleAnnotation]; want != "" && want != r.Name {
					t.Errorf("%s annotated role %q is in role %q", o.GetName(), want, r.Name)
				}
			}
			if r.UpgradeOrder < 0 {
				t.Errorf("role %s has negative upgradeOrder %d", r.Name, r.UpgradeOrder)
			}
		}
	})
}
