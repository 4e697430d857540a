package plan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// from gives o the source path a render with origins records.
func from(o *unstructured.Unstructured, src string) *unstructured.Unstructured {
	ann := o.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[object.SourcePathAnnotation] = src
	o.SetAnnotations(ann)
	return o
}

// TestRoleCriteria: each criterion of a config role alone, and together
// (every criterion set must match), with the precedence of annotations
// and the errors for two claiming roles and a role that claims nothing.
func TestRoleCriteria(t *testing.T) {
	t.Parallel()
	type objs = []*unstructured.Unstructured
	cm := func(t *testing.T, name, ns string) *unstructured.Unstructured {
		o := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "+name+"}\n")
		o.SetNamespace(ns)
		return o
	}
	sel := func(k, v string) labels.Selector { return labels.SelectorFromSet(labels.Set{k: v}) }
	layout := func(t *testing.T) objs {
		return objs{
			from(deploy(t, "postgres-primary", "", "", "app", "pg"), "bases/database/deployment.yaml"),
			from(cm(t, "postgres-config", "app"), "bases/database/kustomization.yaml"),
			from(deploy(t, "redis", "", "", "app", "redis"), "bases/cache/deployment.yaml"),
			from(deploy(t, "api", "", "", "app", "api"), "bases/backend/deployment.yaml"),
			from(cm(t, "api-config", "other"), "bases/backend/config.yaml"),
			deploy(t, "web", "", "", "app", "web"), // from a remote base: no source path
		}
	}
	cases := []struct {
		name    string
		objs    func(t *testing.T) objs
		roles   []model.RoleSpec
		want    []string
		wantErr []string
	}{
		{name: "paths claim a directory and what lies under it", objs: layout,
			roles: []model.RoleSpec{{Name: "data", UpgradeOrder: intp(1), Paths: []string{"bases/database"}},
				{Name: "cache", UpgradeOrder: intp(2), Paths: []string{"bases/cache/"}}},
			want: []string{"0: default=update", "1: data=update", "2: cache=update"}},
		{name: "a path names a file too, and never a sibling with the same prefix", objs: func(t *testing.T) objs {
			return objs{from(deploy(t, "a", "", ""), "bases/db/a.yaml"), from(deploy(t, "b", "", ""), "bases/db-old/b.yaml")}
		}, roles: []model.RoleSpec{{Name: "db", UpgradeOrder: intp(1), Paths: []string{"bases/db"}}, {Name: "file", UpgradeOrder: intp(2), Paths: []string{"bases/db-old/b.yaml"}}},
			want: []string{"1: db=update", "2: file=update"}},
		{name: "names: shell patterns on the name", objs: layout,
			roles: []model.RoleSpec{{Name: "data", UpgradeOrder: intp(1), Names: []string{"postgres-*"}}, {Name: "cache", UpgradeOrder: intp(2), Names: []string{"redi?", "memcached"}}},
			want:  []string{"0: default=update", "1: data=update", "2: cache=update"}},
		{name: "names: namespace/name form, never a cluster-scoped object", objs: func(t *testing.T) objs {
			return append(layout(t), obj(t, "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: api-config}\n"))
		}, roles: []model.RoleSpec{{Name: "other", UpgradeOrder: intp(1), Names: []string{"other/*"}}, {Name: "pv", Names: []string{"*/api-config"}, Kinds: []string{"PersistentVolume"}}},
			wantErr: []string{"role pv matches no object: kinds [PersistentVolume], names [*/api-config] matched nothing"}},
		{name: "every criterion must match", objs: layout,
			roles: []model.RoleSpec{{Name: "data", UpgradeOrder: intp(1), Paths: []string{"bases/database"}, Kinds: []string{"Deployment"}},
				{Name: "config", UpgradeOrder: intp(2), Kinds: []string{"ConfigMap"}, Names: []string{"*-config"}, Paths: []string{"bases/backend"}},
				{Name: "web", UpgradeOrder: intp(3), Selector: sel("app", "web"), Names: []string{"web"}}},
			want: []string{"0: default=update", "1: data=update", "2: config=update", "3: web=update"}},
		{name: "criteria that together match nothing are an error naming them all", objs: layout,
			roles:   []model.RoleSpec{{Name: "data", UpgradeOrder: intp(1), Selector: sel("app", "pg"), Kinds: []string{"StatefulSet"}, Names: []string{"postgres-*"}, Paths: []string{"bases/database"}}},
			wantErr: []string{`role data matches no object: selector "app=pg", kinds [StatefulSet], names [postgres-*], paths [bases/database] matched nothing in the render`}},
		{name: "paths without any source path in the render say so", objs: func(t *testing.T) objs { return objs{deploy(t, "a", "", "")} },
			roles:   []model.RoleSpec{{Name: "data", Paths: []string{"bases/database"}}},
			wantErr: []string{"no object of the render has a source path"}},
		{name: "an object's role annotation beats a config role's paths", objs: func(t *testing.T) objs {
			return objs{from(deploy(t, "pg", "db", ""), "bases/database/a.yaml"), from(deploy(t, "pg2", "", ""), "bases/database/b.yaml")}
		}, roles: []model.RoleSpec{{Name: "data", UpgradeOrder: intp(1), Paths: []string{"bases/database"}}},
			want: []string{"0: db=update", "1: data=update"}},
		{name: "a config role whose only matches are annotated elsewhere is no error", objs: func(t *testing.T) objs {
			return objs{from(deploy(t, "pg", "db", ""), "bases/database/a.yaml")}
		}, roles: []model.RoleSpec{{Name: "data", UpgradeOrder: intp(1), Paths: []string{"bases/database"}}},
			want: []string{"0: db=update"}},
		{name: "two config roles matching one object are an error", objs: layout,
			roles:   []model.RoleSpec{{Name: "data", Paths: []string{"bases/database"}}, {Name: "pg", Names: []string{"postgres-*"}}},
			wantErr: []string{"Deployment/app/postgres-primary matches roles data and pg of the app config", "ConfigMap/app/postgres-config matches roles data and pg"}},
		{name: "a restored object stays in its role, and stands for the role's criteria", objs: func(t *testing.T) objs {
			restored := objs{deploy(t, "postgres-primary", "", "", "app", "pg")}
			MarkRestored(restored, "data")
			return append(restored, from(deploy(t, "redis", "", ""), "bases/cache/d.yaml"))
		}, roles: []model.RoleSpec{{Name: "data", UpgradeOrder: intp(1), Paths: []string{"bases/database"}}, {Name: "cache", UpgradeOrder: intp(2), Names: []string{"redis"}}},
			want: []string{"1: data=update", "2: cache=update"}},
		{name: "annotations: the values listed, \"\" for an object without the annotation (Argo CD's sync waves)", objs: func(t *testing.T) objs {
			wave := func(o *unstructured.Unstructured, w string) *unstructured.Unstructured {
				o.SetAnnotations(map[string]string{"argocd.argoproj.io/sync-wave": w})
				return o
			}
			return objs{deploy(t, "db", "", ""), wave(deploy(t, "db2", "", ""), "0"), wave(deploy(t, "api", "", ""), "1"), wave(deploy(t, "web", "", ""), "2")}
		}, roles: []model.RoleSpec{{Name: "wave-0", UpgradeOrder: intp(1), Annotations: map[string][]string{"argocd.argoproj.io/sync-wave": {"", "0"}}},
			{Name: "wave-1", UpgradeOrder: intp(2), Annotations: map[string][]string{"argocd.argoproj.io/sync-wave": {"1"}}},
			{Name: "wave-2", UpgradeOrder: intp(3), Annotations: map[string][]string{"argocd.argoproj.io/sync-wave": {"2"}}}},
			want: []string{"1: wave-0=update", "2: wave-1=update", "3: wave-2=update"}},
		{name: "a malformed names pattern", objs: layout, roles: []model.RoleSpec{{Name: "data", Names: []string{"postgres-["}}},
			wantErr: []string{`app config role data: names pattern "postgres-["`}},
		{name: "a path outside the repository", objs: layout, roles: []model.RoleSpec{{Name: "data", Paths: []string{"../bases"}}},
			wantErr: []string{`app config role data: paths entry "../bases": must not contain ".."`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.objs(t), Options{App: "web", Roles: tc.roles}, Facts{})
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
			if diff := cmp.Diff(tc.want, shapeOf(p).Waves); diff != "" {
				t.Errorf("waves (-want +got):\n%s", diff)
			}
			for _, r := range p.Roles() {
				for _, o := range r.Objects {
					for k := range o.GetAnnotations() {
						if strings.HasPrefix(k, object.InternalAnnotationPrefix) {
							t.Errorf("%s in role %s still carries %s", Describe(o), r.Name, k)
						}
					}
				}
			}
		})
	}
}

// TestTakeMarks: New plans copies without the internal annotations,
// leaving what it was given as it was, and an object whose only
// annotation was internal has no annotations at all, as kustomize renders
// it.
func TestTakeMarks(t *testing.T) {
	t.Parallel()
	bare := from(deploy(t, "a", "", ""), "bases/a/d.yaml")
	annotated := from(deploy(t, "b", "", ""), "bases/b/d.yaml")
	annotated.SetAnnotations(map[string]string{"team": "x", object.SourcePathAnnotation: "bases/b/d.yaml"})
	plain := deploy(t, "c", "", "")
	in := []*unstructured.Unstructured{bare, annotated, plain}
	out, marks := takeMarks(in)
	if bare.GetAnnotations()[object.SourcePathAnnotation] != "bases/a/d.yaml" {
		t.Error("takeMarks changed its input")
	}
	if _, ok := out[0].Object["metadata"].(map[string]any)["annotations"]; ok {
		t.Errorf("object with only a source path: annotations %v remain", out[0].GetAnnotations())
	}
	if diff := cmp.Diff(map[string]string{"team": "x"}, out[1].GetAnnotations()); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if out[2] != plain {
		t.Error("an object without internal annotations was copied")
	}
	if marks[out[0]].source != "bases/a/d.yaml" || marks[out[1]].source != "bases/b/d.yaml" || len(marks) != 2 {
		t.Errorf("marks %v", marks)
	}
}

func TestCheckRepoPath(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{
		"bases/database":   "",
		"bases/database/":  "",
		"bases/db/sts.yml": "",
		"":                 "must name",
		"/bases/database":  `write "bases/database"`,
		"../bases":         `".."`,
		"bases/../x":       `".."`,
		".":                "whole repository",
		"./bases":          `write "bases"`,
		"bases//database":  `write "bases/database"`,
		`bases\database`:   `write "bases/database"`,
	} {
		got := model.CheckRepoPath(p)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("CheckRepoPath(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestNewPlanRefusesBadRoleNames: a role name from a rendered object's
// annotation or from the config that is not a DNS label fails the plan,
// naming the object and the value.
func TestNewPlanRefusesBadRoleNames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		objs    func(t *testing.T) []*unstructured.Unstructured
		roles   []model.RoleSpec
		wantErr []string
	}{
		{name: "annotation leaves the role directory",
			objs: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{deploy(t, "api", "../other-app/x", "")}
			},
			wantErr: []string{"Deployment/app/api", "annotation roleout.dev/role", `"../other-app/x" is not a valid role name`}},
		{name: "annotation with upper case, next to a good one",
			objs: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{deploy(t, "db", "db", ""), deploy(t, "api", "Front", "")}
			},
			wantErr: []string{"Deployment/app/api", `"Front"`}},
		{name: "config role",
			objs: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{deploy(t, "api", "", "")}
			},
			roles:   []model.RoleSpec{{Name: "a/b"}},
			wantErr: []string{"app config role", `"a/b" is not a valid role name`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.objs(t), Options{App: "web", Roles: tc.roles}, Facts{})
			if err == nil {
				t.Fatalf("planned roles %v; want an error", shapeOf(p).Waves)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// An empty annotation is no annotation: the object joins the default
	// role, as before.
	empty := deploy(t, "api", "", "")
	empty.SetAnnotations(map[string]string{object.RoleAnnotation: ""})
	p, err := New([]*unstructured.Unstructured{empty}, Options{App: "web"}, Facts{})
	if err != nil || len(p.Roles()) != 1 || p.Roles()[0].Name != model.DefaultRole {
		t.Errorf("unannotated object: plan %v, error %v", p, err)
	}
}
