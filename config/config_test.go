package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const minimalConfig = `apiVersion: roleout.dev/v1alpha1
kind: AgentConfig
source: {url: http://git.example/config.git, branch: main}
apps:
- {name: web, path: apps/web}
`

func TestParseConfigFull(t *testing.T) {
	data, err := os.ReadFile("testdata/agent-full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(data, "agent-full.yaml")
	if err != nil {
		t.Fatalf("the full example of the contract (README: Configuration) must parse: %v", err)
	}
	a := c.Apps[0]
	if a.Name != "llm-serving" || a.Namespace != "llm" || *a.Roles[0].UpgradeOrder != 1 ||
		a.Roles[0].Selector.MatchLabels["component"] != "prefill" || a.Timeout.Duration != 5*time.Minute ||
		a.Windows[0].Duration.Duration != 2*time.Hour {
		t.Errorf("parsed app = %+v", a)
	}
	if diff := cmp.Diff([]string(nil), c.NotActedOn()); diff != "" {
		t.Errorf("NotActedOn (-want +got):\n%s", diff)
	}
}

func TestParseConfigDefaults(t *testing.T) {
	c, err := Parse([]byte(minimalConfig), "agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := c.Apps[0]
	if c.Status.Branch != DefaultStatusBranch || c.Schedule.Interval.Duration != DefaultInterval ||
		a.UnorderedRoles != "First" || a.Timeout.Duration != DefaultAppTimeout ||
		*a.RevisionHistoryLimit != DefaultRevisionHistoryLimit || c.CacheDir == "" || c.Status.Author.Name == "" {
		t.Errorf("defaults not filled: %+v", c)
	}
}

func TestParseConfigErrors(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(string) string
		wantErr []string
	}{
		{"misspelled field", func(s string) string { return strings.Replace(s, "branch: main", "brnach: main", 1) },
			[]string{`unknown field "source.brnach"`}},
		{"unknown nested field", func(s string) string { return strings.Replace(s, "path: apps/web", "path: apps/web, nmespace: x", 1) },
			[]string{`unknown field "apps[0].nmespace"`}},
		{"missing url", func(s string) string { return strings.Replace(s, "url: http://git.example/config.git, ", "", 1) },
			[]string{"source.url: required"}},
		{"missing ref", func(s string) string { return strings.Replace(s, ", branch: main", "", 1) },
			[]string{"source.branch: required"}},
		{"two refs", func(s string) string { return strings.Replace(s, "branch: main", "branch: main, tag: v1", 1) },
			[]string{"set only one of branch, tag"}},
		{"short commit", func(s string) string { return strings.Replace(s, "branch: main", "commit: abc123", 1) },
			[]string{"source.commit: must be a full 40-character"}},
		{"bad semver", func(s string) string { return strings.Replace(s, "branch: main", "semver: 'not a range!'", 1) },
			[]string{"source.semver: invalid semver range"}},
		{"missing path", func(s string) string { return strings.Replace(s, ", path: apps/web", "", 1) },
			[]string{"apps[0].path: required"}},
		{"path escapes", func(s string) string { return strings.Replace(s, "path: apps/web", "path: ../other", 1) },
			[]string{"apps[0].path", "inside the repository"}},
		{"no apps", func(s string) string { return strings.Replace(s, "- {name: web, path: apps/web}", "", 1) },
			[]string{"apps: at least one app"}},
		{"bad app name", func(s string) string { return strings.Replace(s, "name: web", "name: Web_1", 1) },
			[]string{"apps[0].name", "not a valid name"}},
		{"duplicate app", func(s string) string { return s + "- {name: web, path: apps/other}\n" },
			[]string{`apps[1].name: duplicate app name "web"`}},
		{"dependsOn an unknown app", func(s string) string {
			return strings.Replace(s, "path: apps/web}", "path: apps/web, dependsOn: [infrastucture]}", 1) + "- {name: infrastructure, path: infra}\n"
		}, []string{`apps[0].dependsOn[0]: no app is named "infrastucture" (did you mean infrastructure?)`}},
		{"dependsOn itself", func(s string) string {
			return strings.Replace(s, "path: apps/web}", "path: apps/web, dependsOn: [web]}", 1)
		},
			[]string{"apps[0].dependsOn[0]: app web cannot depend on itself"}},
		{"dependsOn cycle", func(s string) string {
			return strings.Replace(s, "path: apps/web}", "path: apps/web, dependsOn: [b]}", 1) +
				"- {name: b, path: b, dependsOn: [c]}\n- {name: c, path: c, dependsOn: [web]}\n"
		}, []string{"apps: dependsOn makes a cycle, web → b → c → web"}},
		{"negative upgradeOrder", func(s string) string {
			return strings.Replace(s, "path: apps/web}", "path: apps/web, roles: [{name: db, upgradeOrder: -1}]}", 1)
		}, []string{"apps[0].roles[0].upgradeOrder: must be 0 or more, got -1"}},
		{"role name that is a path", func(s string) string {
			return strings.Replace(s, "path: apps/web}", "path: apps/web, roles: [{name: ../other-app/x}]}", 1)
		}, []string{`apps[0].roles[0].name: "../other-app/x" is not a valid role name`}},
		{"bad role criteria", func(s string) string {
			return strings.Replace(s, "path: apps/web}", `path: apps/web, roles: [{name: db}, {name: data, kinds: ["apps/StatefulSet"], names: ["postgres-[", "a/b/c"],
  paths: [bases/database, /bases/cache, ../shared, "./bases/x"]}]}`, 1)
		}, []string{`apps[0].roles[1].kinds[0]: "apps/StatefulSet" is not a kind`,
			`apps[0].roles[1].names[0]: invalid pattern "postgres-["`, "shell patterns",
			`apps[0].roles[1].names[1]: "a/b/c" has more than one "/"`,
			`apps[0].roles[1].paths[1]: "/bases/cache" must be relative to the repository root, not absolute: write "bases/cache"`,
			`apps[0].roles[1].paths[2]: "../shared" must not contain ".."`,
			`apps[0].roles[1].paths[3]: "./bases/x" must be a clean path: write "bases/x"`}},
		{"wrong type", func(s string) string {
			return strings.Replace(s, "path: apps/web}", "path: apps/web, roles: [{name: db, upgradeOrder: first}]}", 1)
		}, []string{"upgradeOrder"}},
		{"bad unorderedRoles", func(s string) string {
			return strings.Replace(s, "path: apps/web}", "path: apps/web, unorderedRoles: Middle}", 1)
		},
			[]string{"apps[0].unorderedRoles: must be First or Last"}},
		{"kubeconfig twice", func(s string) string {
			return strings.Replace(s, "path: apps/web}", "path: apps/web, kubeconfig: a.yaml, kubeconfigSecret: {name: far}}", 1)
		},
			[]string{"apps[0].kubeconfigSecret: set kubeconfig (a file) or kubeconfigSecret, not both"}},
		{"bad kubeconfigSecret", func(s string) string {
			return strings.Replace(s, "path: apps/web}", "path: apps/web, kubeconfigSecret: {name: Far_Away, key: 'a b'}}", 1)
		},
			[]string{"apps[0].kubeconfigSecret.name", "apps[0].kubeconfigSecret.key"}},
		{"negative maxPollAge", func(s string) string { return s + "healthz: {maxPollAge: -1m}\n" },
			[]string{"healthz.maxPollAge: must be positive"}},
		{"maxPollAge within the interval", func(s string) string { return s + "schedule: {interval: 10m}\nhealthz: {maxPollAge: 5m}\n" },
			[]string{"healthz.maxPollAge: must be longer than schedule.interval (10m0s)"}},
		{"misspelled healthz field", func(s string) string { return s + "healthz: {maxPolAge: 5m}\n" },
			[]string{`unknown field "healthz.maxPolAge"`}},
		{"bad cron", func(s string) string { return s + "schedule: {cron: 'every day'}\n" },
			[]string{"schedule.cron: invalid cron expression"}},
		{"status branch is source branch", func(s string) string { return s + "status: {branch: main}\n" },
			[]string{"status.branch: must differ from source.branch"}},
		{"wrong kind", func(s string) string { return strings.Replace(s, "kind: AgentConfig", "kind: Agent", 1) },
			[]string{"apiVersion/kind"}},
		{"sharding mode", func(s string) string { return s + "sharding: {mode: spread}\n" },
			[]string{`sharding.mode: must be leader, dynamic or static, got "spread"`}},
		{"sharding name", func(s string) string { return s + "sharding: {mode: dynamic, name: Team_A}\n" },
			[]string{`sharding.name: must be a DNS label`}},
		{"duplicate key", func(s string) string {
			return strings.Replace(s, "kind: AgentConfig", "kind: AgentConfig\nkind: AgentConfig", 1)
		},
			[]string{"invalid YAML", "kind"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.edit(minimalConfig)), "agent.yaml")
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range append([]string{"agent.yaml: "}, tc.wantErr...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// TestRoleCriteriaConfig: a role's names and paths reach its render
// spec, and only an app with a paths role renders with origins.
func TestRoleCriteriaConfig(t *testing.T) {
	c, err := Parse([]byte(strings.Replace(minimalConfig, "path: apps/web}", `path: apps/web, roles: [
  {name: data, upgradeOrder: 1, paths: [bases/database], names: ["postgres-*", "data/*"]}, {name: web, kinds: [Deployment]}]}
- {name: other, path: apps/other, roles: [{name: web, kinds: [Deployment]}]}`, 1)), "agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	specs, err := c.Apps[0].RoleSpecs()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"bases/database"}, specs[0].Paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"postgres-*", "data/*"}, specs[0].Names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for i, want := range []bool{true, false} {
		if got := c.Apps[i].UsesPaths(); got != want {
			t.Errorf("app %s uses paths: %v, want %v", c.Apps[i].Name, got, want)
		}
	}
}

func TestExampleAgentConfig(t *testing.T) {
	c, err := Load("../examples/agent.yaml")
	if err != nil {
		t.Fatalf("examples/agent.yaml must parse: %v", err)
	}
	if len(c.Apps) != 2 || c.Apps[0].Render.MaxObjects != 10000 || *c.Apps[0].Roles[1].UpgradeOrder != 2 {
		t.Errorf("examples/agent.yaml parsed as %+v", c)
	}
}

// TestDeployAgentConfig: the agent.yaml of examples/deploy loads, and its
// three replicas share the apps by Leases.
func TestDeployAgentConfig(t *testing.T) {
	c, err := Load("../examples/deploy/agent.yaml")
	if err != nil {
		t.Fatalf("examples/deploy/agent.yaml must parse: %v", err)
	}
	if got := c.Sharding.ModeOrDefault(); got != ShardingDynamic {
		t.Errorf("examples/deploy/agent.yaml: sharding.mode %s, want dynamic", got)
	}
}

// TestExampleAgentConfigNamesEveryField: examples/agent.yaml is the
// annotated reference, so every field of the configuration appears in it
// (set or in a comment).
func TestExampleAgentConfigNamesEveryField(t *testing.T) {
	data, err := os.ReadFile("../examples/agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	var walk func(reflect.Type, string)
	walk = func(typ reflect.Type, prefix string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ.PkgPath() != reflect.TypeOf(Config{}).PkgPath() {
			return
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !regexp.MustCompile(`\b` + name + `:`).Match(data) {
				missing = append(missing, prefix+name)
			}
			walk(f.Type, prefix+name+".")
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	if len(missing) > 0 {
		t.Errorf("examples/agent.yaml does not name these fields: %v", missing)
	}
}

func TestShard(t *testing.T) {
	var apps []App
	for i := range 20 {
		apps = append(apps, App{Name: "app" + string(rune('a'+i))})
	}
	seen := map[string]int{}
	for i := range 3 {
		c := &Config{Apps: apps}
		if err := c.Shard(i, 3); err != nil {
			t.Fatal(err)
		}
		for _, a := range c.Apps {
			seen[a.Name]++
		}
		again := &Config{Apps: apps}
		_ = again.Shard(i, 3)
		if len(again.Apps) != len(c.Apps) {
			t.Error("sharding is not stable")
		}
	}
	if len(seen) != 20 {
		t.Errorf("shards cover %d of 20 apps", len(seen))
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("%s is in %d shards", name, n)
		}
	}
	for _, bad := range []string{"3/3", "1", "a/b", "-1/2"} {
		i, n, err := ParseShard(bad)
		if err == nil {
			err = (&Config{}).Shard(i, n)
		}
		if err == nil {
			t.Errorf("shard %q accepted", bad)
		}
	}
}

func TestUIListener(t *testing.T) {
	for _, c := range []struct {
		yaml, addr, why string
	}{
		{"", "", "not a loopback address"},
		{"http: {address: \"127.0.0.1:8080\"}\n", "127.0.0.1:8080", ""},
		{"http: {address: \"-\"}\n", "", `http.address is "-"`},
		{"ui: {address: \"127.0.0.1:8090\"}\n", "127.0.0.1:8090", ""},
		{"ui: {auth: kubernetes}\n", ":8080", ""},
		{"ui: {enabled: false}\nhttp: {address: \"127.0.0.1:8080\"}\n", "", "ui.enabled is false"},
	} {
		cfg, err := Parse([]byte(minimalConfig+c.yaml), "agent.yaml")
		if err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		addr, why := cfg.UIListener()
		if addr != c.addr || !strings.Contains(why, c.why) || (c.why == "" && why != "") {
			t.Errorf("%q: UIListener = %q, %q; want %q, %q", c.yaml, addr, why, c.addr, c.why)
		}
	}
	for yaml, want := range map[string]string{
		"ui: {auth: oidc}\n":                "ui.auth: must be none or kubernetes",
		"ui: {address: \"0.0.0.0:8090\"}\n": "ui.address: \"0.0.0.0:8090\" is not a loopback address",
		"ui: {address: \"8090\"}\n":         "ui.address: must be host:port",
	} {
		if _, err := Parse([]byte(minimalConfig+yaml), "agent.yaml"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", yaml, err, want)
		}
	}
}

// TestForgeAndNotifications: the forge's defaults, and what a wrong
// forge or notification says.
func TestForgeAndNotifications(t *testing.T) {
	cfg, err := Parse([]byte(minimalConfig+"forge: {type: gitlab, tokenEnv: GL, repository: group/config}\nnotifications: [{type: slack, url: \"https://hooks.example/x\"}]\n"), "agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Forge.APIURL() != "https://gitlab.com" || !cfg.Notifications[0].Wants(EventDriftHealed) {
		t.Errorf("defaults: %q %v", cfg.Forge.APIURL(), cfg.Notifications[0].Wants(EventDriftHealed))
	}
	for _, c := range []struct{ url, want string }{
		{"https://git.example.com/org/config.git", "org/config"},
		{"git@github.com:org/config.git", "org/config"},
		{"ssh://git@gitlab.example.com/group/sub/config", "group/sub/config"},
	} {
		if got := (&Forge{}).RepositoryOr(c.url); got != c.want {
			t.Errorf("RepositoryOr(%s) = %q, want %q", c.url, got, c.want)
		}
	}
	for yaml, want := range map[string]string{
		"forge: {type: bitbucket, tokenFile: t}\n":                            "forge.type: must be github, gitlab or gitea",
		"forge: {type: gitea, tokenFile: t}\n":                                "forge.url: required for gitea",
		"forge: {type: github}\n":                                             "forge.tokenFile: set tokenFile or tokenEnv",
		"forge: {type: github, tokenFile: t, url: \"ftp://x\"}\n":             "forge.url: must be an http(s) URL",
		"notifications: [{type: email, url: \"https://x.example\"}]\n":        "notifications[0].type: must be slack or webhook",
		"notifications: [{type: slack}]\n":                                    "notifications[0].url: set url or urlFile",
		"notifications: [{type: slack, url: \"https://x\", events: [x]}]\n":   "notifications[0].events[0]: must be one of started, succeeded, failed, driftHealed",
		"notifications: [{type: slack, url: \"https://x\", secretFile: s}]\n": "notifications[0].secretFile: only a webhook is signed",
	} {
		if _, err := Parse([]byte(minimalConfig+yaml), "agent.yaml"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", yaml, err, want)
		}
	}
	if got := (App{Kubeconfig: "/etc/clusters/eu-west.yaml"}).ClusterName(); got != "eu-west" {
		t.Errorf("ClusterName = %q", got)
	}
}
