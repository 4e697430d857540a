package render

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/render/revision"
)

// obj builds an object from YAML.
func obj(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// deploy returns a Deployment with the given role and upgrade-order
// annotations ("" leaves one out) and labels.
func deploy(t *testing.T, name, role, order string, lbls ...string) *unstructured.Unstructured {
	t.Helper()
	o := obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: "+name+", namespace: app}\n")
	ann := map[string]string{}
	if role != "" {
		ann[RoleAnnotation] = role
	}
	if order != "" {
		ann[UpgradeOrderAnnotation] = order
	}
	if len(ann) > 0 {
		o.SetAnnotations(ann)
	}
	l := map[string]string{}
	for i := 0; i+1 < len(lbls); i += 2 {
		l[lbls[i]] = lbls[i+1]
	}
	if len(l) > 0 {
		o.SetLabels(l)
	}
	return o
}

func intp(n int) *int { return &n }

// waveNames renders a plan's waves as "order:role,role | order:role".
func waveNames(p *Plan) string {
	var parts []string
	for _, w := range p.Waves {
		var names []string
		for _, r := range w.Roles {
			names = append(names, r.Name)
		}
		parts = append(parts, strings.Join(append([]string{strconv.Itoa(w.UpgradeOrder)}, names...), ":"))
	}
	return strings.Join(parts, " | ")
}

func TestNewPlanWaves(t *testing.T) {
	cases := []struct {
		name string
		objs func(t *testing.T) []*unstructured.Unstructured
		opts PlanOptions
		want string
	}{
		{"ties keep declaration order", func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{
				deploy(t, "router", "router", "2"), deploy(t, "prefill", "prefill", "1"), deploy(t, "decode", "decode", "2"),
			}
		}, PlanOptions{}, "1:prefill | 2:router:decode"},
		{"unset counts as 0 in First mode", func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{deploy(t, "a", "a", "1"), deploy(t, "b", "b", ""), deploy(t, "c", "", "")}
		}, PlanOptions{UnorderedRoles: UnorderedFirst}, "0:b:default | 1:a"},
		{"unset goes last in Last mode", func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{deploy(t, "a", "a", "1"), deploy(t, "b", "b", ""), deploy(t, "c", "c", "0")}
		}, PlanOptions{UnorderedRoles: UnorderedLast}, "0:c | 1:a | 2:b"},
		{"config order and selectors", func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{deploy(t, "web", "", "", "tier", "web"), deploy(t, "db", "", "", "tier", "db")}
		}, PlanOptions{Roles: []RoleSpec{
			{Name: "front", UpgradeOrder: intp(3), Selector: labels.SelectorFromSet(labels.Set{"tier": "web"})},
			{Name: "data", UpgradeOrder: intp(1), Selector: labels.SelectorFromSet(labels.Set{"tier": "db"})},
		}}, "1:data | 3:front"},
		{"annotation beats selector", func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{deploy(t, "web", "data", "", "tier", "web")}
		}, PlanOptions{Roles: []RoleSpec{
			{Name: "front", UpgradeOrder: intp(3), Selector: labels.SelectorFromSet(labels.Set{"tier": "web"})},
			{Name: "data", UpgradeOrder: intp(1)},
		}}, "1:data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPlan(tc.objs(t), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, waveNames(p)); diff != "" {
				t.Errorf("waves (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewPlanPrerequisites(t *testing.T) {
	crd := obj(t, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com, annotations: {roleout.dev/role: b}}\n")
	ns := obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n")
	cr := obj(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: app, annotations: {roleout.dev/role: b, roleout.dev/upgrade-order: '1'}}\n")
	p, err := NewPlan([]*unstructured.Unstructured{cr, crd, ns}, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Prerequisites) != 2 || p.Prerequisites[0] != crd || p.Prerequisites[1] != ns {
		t.Errorf("prerequisites = %v, want the CRD and the Namespace", p.Prerequisites)
	}
	if got := waveNames(p); got != "1:b" {
		t.Errorf("waves = %q, want the CR alone in role b", got)
	}
	if p.PrerequisitesHash == "" || p.Waves[0].Roles[0].Hash == "" {
		t.Error("hashes not computed")
	}
}

func TestNewPlanErrors(t *testing.T) {
	cases := []struct {
		name    string
		objs    func(t *testing.T) []*unstructured.Unstructured
		opts    PlanOptions
		wantErr []string
	}{
		{"conflicting annotations in a role", func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{deploy(t, "a", "r", "1"), deploy(t, "b", "r", "2")}
		}, PlanOptions{}, []string{"role r", "Deployment/app/b", "=2", "Deployment/app/a", "sets 1"}},
		{"annotation disagrees with config", func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{deploy(t, "a", "r", "1")}
		}, PlanOptions{Roles: []RoleSpec{{Name: "r", UpgradeOrder: intp(4)}}}, []string{"Deployment/app/a", "the app config sets 4"}},
		{"negative order", func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{deploy(t, "a", "r", "-1")}
		}, PlanOptions{}, []string{"Deployment/app/a", `roleout.dev/upgrade-order="-1"`, "0 or more"}},
		{"not a number", func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{deploy(t, "a", "r", "first")}
		}, PlanOptions{}, []string{`"first"`}},
		{"two selectors match", func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{deploy(t, "a", "", "", "x", "1")}
		}, PlanOptions{Roles: []RoleSpec{
			{Name: "p", Selector: labels.SelectorFromSet(labels.Set{"x": "1"})},
			{Name: "q", Selector: labels.Everything()},
		}}, []string{"Deployment/app/a", "roles p and q"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewPlan(tc.objs(t), tc.opts)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestNewPlanPrune(t *testing.T) {
	ns := obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n")
	objs := []*unstructured.Unstructured{ns,
		deploy(t, "db", "db", "1"), deploy(t, "db-backup", "db", "1"),
		deploy(t, "api", "api", "2"), deploy(t, "cache", "cache", "3")}
	first, err := NewPlan(objs, PlanOptions{App: "web"})
	if err != nil {
		t.Fatal(err)
	}
	inv := first.Inventory()
	if len(inv) != 5 || !inv[0].Prerequisite || inv[4].Role != "cache" || inv[4].UpgradeOrder != 3 {
		t.Fatalf("inventory = %+v", inv)
	}
	// db loses one object, cache loses all of its, the namespace goes.
	second, err := NewPlan([]*unstructured.Unstructured{objs[1], objs[3]}, PlanOptions{App: "web", Inventory: inv})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range second.Prune {
		got = append(got, e.String())
	}
	want := []string{"Deployment/app/cache", "Deployment/app/db-backup", "Namespace/app"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prune order (-want +got):\n%s", diff)
	}
	if r := second.Waves[0].Roles[0]; r.Name != "db" || !r.Changed() {
		t.Errorf("role db lost an object: it must be changed, got %+v", r.Decision)
	}
}

func TestNewPlanDecisions(t *testing.T) {
	objs := func(image string) []*unstructured.Unstructured {
		d := deploy(t, "api", "api", "1")
		d.Object["spec"] = map[string]any{"image": image}
		return []*unstructured.Unstructured{d, deploy(t, "db", "db", "0")}
	}
	p1, err := NewPlan(objs("v1"), PlanOptions{App: "web", Source: "main@sha1:1"})
	if err != nil {
		t.Fatal(err)
	}
	history := map[string][]revision.RoleRevision{}
	for _, r := range p1.Roles() {
		history[r.Name] = r.History
	}
	p2, err := NewPlan(objs("v2"), PlanOptions{App: "web", History: history, Source: "main@sha1:2"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range p2.Roles() {
		got[r.Name] = string(r.Decision.Action) + ":" + strconv.Itoa(int(r.Decision.Revision.Revision))
		if r.Decision.Revision.Name != "web-"+r.Name+"-"+r.Decision.Revision.Hash {
			t.Errorf("revision name %q", r.Decision.Revision.Name)
		}
	}
	if diff := cmp.Diff(map[string]string{"db": "unchanged:1", "api": "update:2"}, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}

func TestNewPlanRestartsPods(t *testing.T) {
	dep := func(replicas int, image string) []*unstructured.Unstructured {
		return []*unstructured.Unstructured{obj(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: app, annotations: {roleout.dev/role: api}}
spec:
  replicas: `+strconv.Itoa(replicas)+`
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: "`+image+`"}]}
`), obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: app, annotations: {roleout.dev/role: api}}\n")}
	}
	plan := func(objs []*unstructured.Unstructured, history map[string][]revision.RoleRevision) *Role {
		t.Helper()
		p, err := NewPlan(objs, PlanOptions{App: "web", History: history})
		if err != nil {
			t.Fatal(err)
		}
		return p.Roles()[0]
	}
	first := plan(dep(1, "api:1"), nil)
	if len(first.Workloads) != 1 || !first.Workloads[0].RestartsPods || first.Workloads[0].Predicted.ReplicaSetName == "" {
		t.Fatalf("a new Deployment: %+v", first.Workloads)
	}
	hist := map[string][]revision.RoleRevision{"api": first.History}
	scaled := plan(dep(3, "api:1"), hist)
	if !scaled.Changed() || scaled.Workloads[0].RestartsPods {
		t.Errorf("scaling changes the role (%v) but restarts no pod (%v)", scaled.Changed(), scaled.Workloads[0].RestartsPods)
	}
	if !scaled.Workloads[0].Predicted.Equal(first.Workloads[0].Predicted) {
		t.Error("scaling must keep the ReplicaSet")
	}
	bumped := plan(dep(1, "api:2"), hist)
	if !bumped.Workloads[0].RestartsPods || bumped.Workloads[0].Predicted.Equal(first.Workloads[0].Predicted) {
		t.Errorf("a new image must restart pods under a new ReplicaSet: %+v", bumped.Workloads[0])
	}
}
