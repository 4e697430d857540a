package plan

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
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
// annotations ("" leaves one out) and labels: one container, image
// "img:1" (setImage changes it).
func deploy(t *testing.T, name, role, order string, lbls ...string) *unstructured.Unstructured {
	t.Helper()
	o := obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: "+name+", namespace: app}\n"+
		"spec:\n  selector: {matchLabels: {app: "+name+"}}\n  template:\n    metadata: {labels: {app: "+name+"}}\n"+
		"    spec: {containers: [{name: c, image: \"img:1\"}]}\n")
	ann := map[string]string{}
	if role != "" {
		ann[object.RoleAnnotation] = role
	}
	if order != "" {
		ann[object.UpgradeOrderAnnotation] = order
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

// setImage sets the image of d's one container.
func setImage(t *testing.T, d *unstructured.Unstructured, image string) {
	t.Helper()
	if err := unstructured.SetNestedSlice(d.Object, []any{map[string]any{"name": "c", "image": image}}, "spec", "template", "spec", "containers"); err != nil {
		t.Fatal(err)
	}
}

func intp(n int) *int { return &n }

// planShape is what the planning rules decide: the prerequisites, the
// waves as "order: role=action role=action", and the prune set, each in
// order.
type planShape struct {
	Prerequisites []string
	Waves         []string
	Prune         []string
}

func shapeOf(p *model.Plan) planShape {
	var s planShape
	for _, o := range p.Prerequisites {
		s.Prerequisites = append(s.Prerequisites, Describe(o))
	}
	for _, w := range p.Waves {
		parts := []string{strconv.Itoa(w.UpgradeOrder) + ":"}
		for _, r := range w.Roles {
			parts = append(parts, r.Name+"="+string(r.Decision.Action))
		}
		s.Waves = append(s.Waves, strings.Join(parts, " "))
	}
	for _, e := range p.Prune {
		s.Prune = append(s.Prune, e.String())
	}
	return s
}

// TestNewPlanRules is the table of the planning rules of doc.go. A case
// with before plans it first and hands its inventory and role histories
// to the plan of objs, as the previous status would.
func TestNewPlanRules(t *testing.T) {
	t.Parallel()
	type objs = []*unstructured.Unstructured
	crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com, annotations: {roleout.dev/role: b}}\n"
	widget := "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: app, annotations: {roleout.dev/role: b, roleout.dev/upgrade-order: '1'}}\n"
	ns := "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n"
	clusterRole := "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\n"
	front := model.RoleSpec{Name: "front", UpgradeOrder: intp(3), Selector: labels.SelectorFromSet(labels.Set{"tier": "web"})}
	cases := []struct {
		name    string
		before  func(t *testing.T) objs
		objs    func(t *testing.T) objs
		opts    Options
		want    planShape
		wantErr []string
	}{
		{name: "ties keep declaration order", objs: func(t *testing.T) objs {
			return objs{deploy(t, "router", "router", "2"), deploy(t, "prefill", "prefill", "1"), deploy(t, "decode", "decode", "2")}
		}, want: planShape{Waves: []string{"1: prefill=update", "2: router=update decode=update"}}},
		{name: "ties among config roles keep config order", objs: func(t *testing.T) objs {
			return objs{deploy(t, "queue", "second", ""), deploy(t, "worker", "first", "")}
		}, opts: Options{Roles: []model.RoleSpec{{Name: "first", UpgradeOrder: intp(1)}, {Name: "second", UpgradeOrder: intp(1)}}},
			want: planShape{Waves: []string{"1: first=update second=update"}}},
		{name: "unset counts as 0 when unorderedRoles is unset", objs: func(t *testing.T) objs {
			return objs{deploy(t, "a", "a", "1"), deploy(t, "b", "b", ""), deploy(t, "c", "", "")}
		}, want: planShape{Waves: []string{"0: b=update default=update", "1: a=update"}}},
		{name: "unset counts as 0 in First mode", objs: func(t *testing.T) objs {
			return objs{deploy(t, "a", "a", "1"), deploy(t, "b", "b", ""), deploy(t, "c", "c", "0")}
		}, opts: Options{UnorderedRoles: model.UnorderedFirst}, want: planShape{Waves: []string{"0: b=update c=update", "1: a=update"}}},
		{name: "unset goes last in Last mode", objs: func(t *testing.T) objs {
			return objs{deploy(t, "a", "a", "1"), deploy(t, "b", "b", ""), deploy(t, "c", "c", "0"), deploy(t, "d", "", "")}
		}, opts: Options{UnorderedRoles: model.UnorderedLast}, want: planShape{Waves: []string{"0: c=update", "1: a=update", "2: b=update default=update"}}},
		{name: "Last mode with no ordered role", objs: func(t *testing.T) objs { return objs{deploy(t, "b", "b", "")} },
			opts: Options{UnorderedRoles: model.UnorderedLast}, want: planShape{Waves: []string{"0: b=update"}}},
		{name: "config order and selectors", objs: func(t *testing.T) objs {
			return objs{deploy(t, "web", "", "", "tier", "web"), deploy(t, "db", "", "", "tier", "db")}
		}, opts: Options{Roles: []model.RoleSpec{front, {Name: "data", UpgradeOrder: intp(1), Selector: labels.SelectorFromSet(labels.Set{"tier": "db"})}}},
			want: planShape{Waves: []string{"1: data=update", "3: front=update"}}},
		{name: "kinds alone claim their objects", objs: func(t *testing.T) objs {
			return objs{deploy(t, "web", "", ""), obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: app}\n")}
		}, opts: Options{Roles: []model.RoleSpec{{Name: "workloads", UpgradeOrder: intp(2), Kinds: []string{"Deployment"}}}},
			want: planShape{Waves: []string{"0: default=update", "2: workloads=update"}}},
		{name: "a config role that claims nothing is an error", objs: func(t *testing.T) objs {
			return objs{deploy(t, "web", "", "", "tier", "web")}
		}, opts: Options{Roles: []model.RoleSpec{{Name: "data", UpgradeOrder: intp(1), Selector: labels.SelectorFromSet(labels.Set{"tier": "db"}), Kinds: []string{"StatefulSet"}}}},
			wantErr: []string{`role data matches no object: selector "tier=db", kinds [StatefulSet] matched nothing in the render`}},
		{name: "an order-only config role may be empty", objs: func(t *testing.T) objs { return objs{deploy(t, "web", "", "")} },
			opts: Options{Roles: []model.RoleSpec{{Name: "data", UpgradeOrder: intp(1)}}}, want: planShape{Waves: []string{"0: default=update"}}},
		{name: "annotation beats selector", objs: func(t *testing.T) objs { return objs{deploy(t, "web", "data", "", "tier", "web")} },
			opts: Options{Roles: []model.RoleSpec{front, {Name: "data", UpgradeOrder: intp(1)}}}, want: planShape{Waves: []string{"1: data=update"}}},
		{name: "CRDs before their CRs, whatever their role", objs: func(t *testing.T) objs {
			return objs{obj(t, widget), obj(t, crd), obj(t, ns)}
		}, want: planShape{Prerequisites: []string{"CustomResourceDefinition/widgets.example.com", "Namespace/app"}, Waves: []string{"1: b=update"}}},
		{name: "every prerequisite kind, and only those", objs: func(t *testing.T) objs {
			return objs{
				deploy(t, "api", "api", "1"),
				obj(t, "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high, annotations: {roleout.dev/role: api}}\nvalue: 1000\n"),
				obj(t, "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: example.com/disk\n"),
				obj(t, clusterRole),
				obj(t, "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: reader}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}\n"),
				obj(t, crd), obj(t, ns),
				obj(t, "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: local, namespace: app, annotations: {roleout.dev/role: api}}\n"),
				obj(t, "apiVersion: example.com/v1\nkind: Namespace\nmetadata: {name: not-core, namespace: app, annotations: {roleout.dev/role: api}}\n"),
			}
		}, want: planShape{Prerequisites: []string{"PriorityClass/high", "StorageClass/fast", "ClusterRole/reader", "ClusterRoleBinding/reader",
			"CustomResourceDefinition/widgets.example.com", "Namespace/app"}, Waves: []string{"1: api=update"}}},
		{name: "a role that only loses objects changes, and its lost object is pruned", before: func(t *testing.T) objs {
			return objs{deploy(t, "db", "db", "1"), deploy(t, "db-backup", "db", "1"), deploy(t, "api", "api", "2")}
		}, objs: func(t *testing.T) objs { return objs{deploy(t, "db", "db", "1"), deploy(t, "api", "api", "2")} },
			want: planShape{Waves: []string{"1: db=update", "2: api=unchanged"}, Prune: []string{"Deployment/app/db-backup"}}},
		{name: "prune in reverse order, prerequisites last", before: func(t *testing.T) objs {
			return objs{obj(t, ns), obj(t, clusterRole), deploy(t, "db", "db", "1"), deploy(t, "db-backup", "db", "1"),
				deploy(t, "db-cron", "db", "1"), deploy(t, "api", "api", "2"), deploy(t, "cache", "cache", "3")}
		}, objs: func(t *testing.T) objs { return objs{deploy(t, "db", "db", "1"), deploy(t, "api", "api", "2")} },
			want: planShape{Waves: []string{"1: db=update", "2: api=unchanged"},
				Prune: []string{"Deployment/app/cache", "Deployment/app/db-cron", "Deployment/app/db-backup", "ClusterRole/reader", "Namespace/app"}}},
		{name: "negative order rejected", objs: func(t *testing.T) objs { return objs{deploy(t, "a", "r", "-1")} },
			wantErr: []string{"Deployment/app/a", `roleout.dev/upgrade-order="-1"`, "0 or more"}},
		{name: "order that is not a number", objs: func(t *testing.T) objs { return objs{deploy(t, "a", "r", "first")} },
			wantErr: []string{"Deployment/app/a", `"first"`, "whole number"}},
		{name: "objects of a role disagree", objs: func(t *testing.T) objs { return objs{deploy(t, "a", "r", "1"), deploy(t, "b", "r", "2")} },
			wantErr: []string{"role r", "Deployment/app/b", "=2", "Deployment/app/a", "sets 1"}},
		{name: "annotation disagrees with config", objs: func(t *testing.T) objs { return objs{deploy(t, "a", "r", "1")} },
			opts: Options{Roles: []model.RoleSpec{{Name: "r", UpgradeOrder: intp(4)}}}, wantErr: []string{"Deployment/app/a", "the app config sets 4"}},
		{name: "two selectors match", objs: func(t *testing.T) objs { return objs{deploy(t, "a", "", "", "x", "1")} },
			opts:    Options{Roles: []model.RoleSpec{{Name: "p", Selector: labels.SelectorFromSet(labels.Set{"x": "1"})}, {Name: "q", Selector: labels.Everything()}}},
			wantErr: []string{"Deployment/app/a", "roles p and q"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.App = "web"
			if tc.before != nil {
				prev, err := New(tc.before(t), opts, Facts{})
				if err != nil {
					t.Fatal(err)
				}
				opts.Inventory, opts.History = prev.Inventory(), map[string][]revision.RoleRevision{}
				for _, r := range prev.Roles() {
					opts.History[r.Name] = r.History
				}
			}
			p, err := New(tc.objs(t), opts, Facts{})
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("no error; plan %+v", shapeOf(p))
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, shapeOf(p)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			for _, r := range p.Roles() {
				if r.Hash == "" || r.Decision.Revision.Name == "" {
					t.Errorf("role %s: hash %q, revision %q", r.Name, r.Hash, r.Decision.Revision.Name)
				}
			}
			if len(p.Prerequisites) > 0 && p.PrerequisitesHash == "" {
				t.Error("prerequisites without a hash")
			}
		})
	}
}

// TestPlanInventory: the inventory lists what a plan applies, in apply
// order, with each object's role and wave.
func TestPlanInventory(t *testing.T) {
	t.Parallel()
	ns := obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n")
	p, err := New([]*unstructured.Unstructured{deploy(t, "api", "api", "2"), ns, deploy(t, "db", "db", "1")}, Options{App: "web"}, Facts{})
	if err != nil {
		t.Fatal(err)
	}
	want := []model.InventoryEntry{
		{Ref: object.Ref{APIVersion: "v1", Kind: "Namespace", Name: "app"}, Prerequisite: true},
		{Ref: object.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "app", Name: "db"}, Role: "db", UpgradeOrder: 1},
		{Ref: object.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "app", Name: "api"}, Role: "api", UpgradeOrder: 2},
	}
	if diff := cmp.Diff(want, p.Inventory()); diff != "" {
		t.Errorf("inventory (-want +got):\n%s", diff)
	}
}

func TestNewPlanDecisions(t *testing.T) {
	t.Parallel()
	objs := func(image string) []*unstructured.Unstructured {
		d := deploy(t, "api", "api", "1")
		setImage(t, d, image)
		return []*unstructured.Unstructured{d, deploy(t, "db", "db", "0")}
	}
	p1, err := New(objs("v1"), Options{App: "web", Source: "main@sha1:1"}, Facts{})
	if err != nil {
		t.Fatal(err)
	}
	history := map[string][]revision.RoleRevision{}
	for _, r := range p1.Roles() {
		history[r.Name] = r.History
	}
	p2, err := New(objs("v2"), Options{App: "web", History: history, Source: "main@sha1:2"}, Facts{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range p2.Roles() {
		got[r.Name] = string(r.Decision.Action) + ":" + strconv.Itoa(int(r.Decision.Revision.Number))
		if r.Decision.Revision.Name != "web-"+r.Name+"-"+r.Decision.Revision.Hash {
			t.Errorf("revision name %q", r.Decision.Revision.Name)
		}
	}
	if diff := cmp.Diff(map[string]string{"db": "unchanged:1", "api": "update:2"}, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}

func TestNewPlanRestartsPods(t *testing.T) {
	t.Parallel()
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
	plan := func(objs []*unstructured.Unstructured, history map[string][]revision.RoleRevision) *model.Role {
		t.Helper()
		p, err := New(objs, Options{App: "web", History: history}, Facts{})
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
