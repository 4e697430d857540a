package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/render"
)

// TestConfigDestinationsErrors: malformed allowedNamespaces and
// allowedKinds, of an app or of the defaults, are errors naming the field.
func TestConfigDestinationsErrors(t *testing.T) {
	cases := []struct {
		name    string
		edit    string // appended to the app's flow mapping, or the file
		defs    bool
		wantErr []string
	}{
		{"bad namespace", `, allowedNamespaces: [web, Kube_System, "a*b*"]`, false,
			[]string{`apps[0].allowedNamespaces[1]: "Kube_System" is not a namespace name`, `apps[0].allowedNamespaces[2]: "a*b*"`}},
		{"kind missing", `, allowedKinds: [{group: apps}]`, false, []string{`apps[0].allowedKinds[0].kind: "" is not a kind`}},
		{"group wildcard", `, allowedKinds: [{group: "*", kind: "*"}]`, false, []string{`apps[0].allowedKinds[0].group: must name an API group`}},
		{"bad group", `, allowedKinds: [{group: "Apps!", kind: Deployment}]`, false, []string{`apps[0].allowedKinds[0].group: "Apps!" is not an API group`}},
		{"misspelled field", `, allowedKinds: [{grup: apps, kind: "*"}]`, false, []string{`unknown field "apps[0].allowedKinds[0].grup"`}},
		{"defaults", "defaults: {allowedNamespaces: [\"-x*\"], allowedKinds: [{kind: \"Config Map\"}]}\n", true,
			[]string{`defaults.allowedNamespaces[0]: "-x*"`, `defaults.allowedKinds[0].kind: "Config Map" is not a kind`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := minimalConfig + tc.edit
			if !tc.defs {
				cfg = strings.Replace(minimalConfig, "path: apps/web}", "path: apps/web"+tc.edit+"}", 1)
			}
			_, err := ParseConfig([]byte(cfg), "agent.yaml")
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
	ok := strings.Replace(minimalConfig, "path: apps/web}", `path: apps/web, allowedNamespaces: [web, "team-*", "*"], allowedKinds: [{group: apps, kind: "*"}, {kind: ConfigMap}]}`, 1)
	if _, err := ParseConfig([]byte(ok), "agent.yaml"); err != nil {
		t.Errorf("valid destinations refused: %v", err)
	}
}

// TestAgentDestinations: an app's own fields win over the defaults, which
// win over the built-in rules; errors name where the rule came from.
func TestAgentDestinations(t *testing.T) {
	cfg := &Config{
		Defaults: DefaultsConfig{AllowedNamespaces: []string{"shared"}, AllowedKinds: []KindConfig{{Group: "apps", Kind: "*"}}},
		Apps: []AppConfig{
			{Name: "own", Namespace: "web", AllowedNamespaces: []string{"web-data"}, AllowedKinds: []KindConfig{{Kind: "ConfigMap"}}},
			{Name: "defaulted"},
		},
	}
	a := NewWithDeps(cfg, Deps{}, quietLogger())
	want := []render.Destinations{
		{App: "own", Namespace: "web", Namespaces: []string{"web-data"}, Kinds: []render.KindRule{{Kind: "ConfigMap"}},
			NamespacesField: "apps[0].allowedNamespaces", NamespacesFix: "apps[0].allowedNamespaces",
			KindsField: "apps[0].allowedKinds", KindsFix: "apps[0].allowedKinds"},
		{App: "defaulted", Namespace: "default", Namespaces: []string{"shared"}, Kinds: []render.KindRule{{Group: "apps", Kind: "*"}},
			NamespacesField: "defaults.allowedNamespaces", NamespacesFix: "apps[1].allowedNamespaces",
			KindsField: "defaults.allowedKinds", KindsFix: "apps[1].allowedKinds"},
	}
	for i, app := range cfg.Apps {
		if diff := cmp.Diff(want[i], a.cfg.destinations(app)); diff != "" {
			t.Errorf("destinations of %s (-want +got):\n%s", app.Name, diff)
		}
	}
	cfg.Defaults = DefaultsConfig{}
	if d := a.cfg.destinations(cfg.Apps[1]); d.Namespaces != nil || d.Kinds != nil || d.NamespacesField != "apps[1].allowedNamespaces" {
		t.Errorf("without defaults: %+v, want the built-in rules (nil lists)", d)
	}
}

// TestReconcileRefusesOutsideDestinations: a render with one object in a
// namespace the app may not use, or of a cluster-scoped kind it does not
// list, is refused whole: nothing applied, nothing pruned, and the status
// names the object and the field.
func TestReconcileRefusesOutsideDestinations(t *testing.T) {
	stray := testObject("v1", "ConfigMap", "kube-system", "stray")
	god := testObject("rbac.authorization.k8s.io/v1", "ClusterRole", "", "god")
	cases := []struct {
		name  string
		extra *unstructured.Unstructured
		want  string
	}{
		{"namespace", stray, "ConfigMap/kube-system/stray: namespace kube-system is not allowed for app llm (apps[0].allowedNamespaces unset"},
		{"cluster-scoped kind", god, "ClusterRole/god: cluster-scoped kind ClusterRole.rbac.authorization.k8s.io is not allowed for app llm (apps[0].allowedKinds unset"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(threeRoles("decode:1"), func(a *AppConfig) { a.Prune = true })
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			// The next commit changes decode, drops router and adds the
			// refused object: none of it may reach the cluster.
			h.newCommit('b', append(threeRoles("decode:2")[:3], tc.extra))
			h.applier.applied = nil
			err := h.agent.RunOnce(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if len(h.applier.applied) > 0 || len(h.applier.pruned) > 0 {
				t.Errorf("applied %v, pruned %v; want nothing", h.applier.applied, h.applier.pruned)
			}
			st := h.appStatus(t)
			if st.Phase != PhaseFailed || !strings.Contains(st.Message, tc.want) || !strings.Contains(st.Message, "nothing of it applied") {
				t.Errorf("status %s %q, want Failed naming %q", st.Phase, st.Message, tc.want)
			}
		})
	}
}

// TestExampleDestinations renders the examples with examples/agent.yaml's
// rules: the annotated config allows what its own examples declare.
func TestExampleDestinations(t *testing.T) {
	cfg, err := LoadConfig("../examples/agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := NewWithDeps(cfg, Deps{}, quietLogger())
	roots := map[string]string{"llm-serving": "../examples/llm-serving", "web-stack": ".."}
	for _, app := range cfg.Apps {
		root, err := filepath.Abs(roots[app.Name])
		if err != nil {
			t.Fatal(err)
		}
		res, err := (&render.Renderer{}).Build(context.Background(), render.Source{Root: root}, app.Path, render.DefaultOptions())
		if err != nil {
			t.Fatalf("render %s: %v", app.Name, err)
		}
		ns := app.Namespace
		if ns == "" {
			ns = "default"
		}
		if err := render.DefaultNamespace(res.Objects, ns); err != nil {
			t.Fatal(err)
		}
		if err := a.cfg.checkDestinations(app, res.Objects); err != nil {
			t.Errorf("app %s: %v", app.Name, err)
		}
	}
}

// TestRollbackRefusesOutsideDestinations: a rollback re-applies recorded
// objects, which are checked like a render: a revision the app's rules no
// longer allow is refused and nothing is applied.
func TestRollbackRefusesOutsideDestinations(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	ctx := context.Background()
	for _, c := range []byte{'a', 'b'} {
		if c == 'b' {
			h.newCommit(c, threeRoles("decode:2"))
		}
		if err := h.agent.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	h.agent.cfg.Apps[0].AllowedNamespaces = []string{"other"}
	h.applier.applied = nil
	_, err := h.agent.Rollback(ctx, "llm", "decode", 1)
	want := "Deployment/app/decode: namespace app is not allowed for app llm (apps[0].allowedNamespaces: [other], and the app's namespace default)"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "roll back decode to revision 1 refused") {
		t.Errorf("rollback: %v, want an error containing %q", err, want)
	}
	if len(h.applier.applied) > 0 {
		t.Errorf("applied %v, want nothing", h.applier.applied)
	}
}
