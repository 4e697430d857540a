package config

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/plan"
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
			_, err := Parse([]byte(cfg), "agent.yaml")
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
	if _, err := Parse([]byte(ok), "agent.yaml"); err != nil {
		t.Errorf("valid destinations refused: %v", err)
	}
}

// TestAgentDestinations: an app's own fields win over the defaults, which
// win over the built-in rules; errors name where the rule came from.
func TestDestinations(t *testing.T) {
	cfg := &Config{
		Defaults: Defaults{AllowedNamespaces: []string{"shared"}, AllowedKinds: []AllowedKind{{Group: "apps", Kind: "*"}}},
		Apps: []App{
			{Name: "own", Namespace: "web", AllowedNamespaces: []string{"web-data"}, AllowedKinds: []AllowedKind{{Kind: "ConfigMap"}}},
			{Name: "defaulted"},
		},
	}
	want := []model.Destinations{
		{App: "own", Namespace: "web", Namespaces: []string{"web-data"}, Kinds: []model.KindRule{{Kind: "ConfigMap"}},
			NamespacesField: "apps[0].allowedNamespaces", NamespacesFix: "apps[0].allowedNamespaces",
			KindsField: "apps[0].allowedKinds", KindsFix: "apps[0].allowedKinds"},
		{App: "defaulted", Namespace: "default", Namespaces: []string{"shared"}, Kinds: []model.KindRule{{Group: "apps", Kind: "*"}},
			NamespacesField: "defaults.allowedNamespaces", NamespacesFix: "apps[1].allowedNamespaces",
			KindsField: "defaults.allowedKinds", KindsFix: "apps[1].allowedKinds"},
	}
	for i, app := range cfg.Apps {
		if diff := cmp.Diff(want[i], cfg.Destinations(app)); diff != "" {
			t.Errorf("destinations of %s (-want +got):\n%s", app.Name, diff)
		}
	}
	cfg.Defaults = Defaults{}
	if d := cfg.Destinations(cfg.Apps[1]); d.Namespaces != nil || d.Kinds != nil || d.NamespacesField != "apps[1].allowedNamespaces" {
		t.Errorf("without defaults: %+v, want the built-in rules (nil lists)", d)
	}
}

// TestExampleDestinations renders the examples with examples/agent.yaml's
// rules: the annotated config allows what its own examples declare.
func TestExampleDestinations(t *testing.T) {
	cfg, err := Load("../examples/agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
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
		scopes := plan.KindScopes(res.Objects, nil)
		plan.DefaultNamespace(res.Objects, app.NamespaceOrDefault(), scopes)
		if err := plan.CheckDestinations(res.Objects, cfg.Destinations(app), scopes); err != nil {
			t.Errorf("app %s: %v", app.Name, err)
		}
	}
}
