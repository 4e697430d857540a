package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGenerate: one app per matching directory, named and templated from
// its components, sorted by path; excluded directories, names that are no
// DNS label or are taken make no app, each with a reason.
func TestGenerate(t *testing.T) {
	cfg, err := Parse([]byte(`apiVersion: roleout.dev/v1alpha1
kind: AgentConfig
source: {url: http://git.example/config.git, branch: main}
apps:
- {name: shop, path: legacy/shop}
appGenerators:
- directories: "apps/*/overlays/prod"
  exclude: ["apps/old/overlays/prod"]
  name: "{{dir 1}}"
  template: {namespace: "team-{{dir 1}}", prune: true, dependsOn: [shop]}
  pruneRemoved: true
`), "agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gen := cfg.Generate([]string{"apps/web/overlays/prod", "apps/api/overlays/prod", "apps/web/overlays/dev", "apps/old/overlays/prod",
		"apps/Bad_Name/overlays/prod", "apps/shop/overlays/prod", "legacy/shop"})
	var got []string
	for _, a := range gen.Apps {
		got = append(got, a.Name+"="+a.Path+"@"+a.Namespace+" "+strings.Join(a.DependsOn, ","))
		if !a.Prune || a.Generator != 1 || a.Timeout.Duration == 0 {
			t.Errorf("%s: prune %v, generator %d, timeout %s", a.Name, a.Prune, a.Generator, a.Timeout.Duration)
		}
	}
	want := []string{"api=apps/api/overlays/prod@team-api shop", "web=apps/web/overlays/prod@team-web shop"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	if len(gen.Skipped) != 2 || !strings.Contains(gen.Skipped[0], `"bad_name"`) && !strings.Contains(gen.Skipped[0], "Bad_Name") ||
		!strings.Contains(gen.Skipped[1], `app name "shop" is taken`) {
		t.Errorf("skipped: %q", gen.Skipped)
	}
}

// TestGeneratorErrors: a pattern that leaves the repository, a template
// that sets a path, and an unknown placeholder are config errors.
func TestGeneratorErrors(t *testing.T) {
	for _, c := range []struct{ gen, want string }{
		{`{directories: "../apps/*"}`, "appGenerators[0].directories"},
		{`{directories: "apps/*", template: {path: x}}`, "sets path or name"},
		{`{directories: "apps/*", name: "{{cluster}}"}`, "{{cluster}} is not a placeholder"},
	} {
		_, err := Parse([]byte("apiVersion: roleout.dev/v1alpha1\nkind: AgentConfig\nsource: {url: http://git.example/c.git, branch: main}\nappGenerators: ["+c.gen+"]\n"), "agent.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.gen, err, c.want)
		}
	}
}
