package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// configHead is the start of a correct agent config in the block style a
// new user writes; the cases below add what they get wrong.
const configHead = `apiVersion: roleout.dev/v1alpha1
kind: AgentConfig
source:
  url: https://git.example/config.git
  branch: main
`

// ConfigErrorCases are wrong configs a new user writes, each with what its
// error must say: where (the field's path, or the YAML line), what is
// wrong, and what to write instead. cmd/roleout runs a few through the CLI.
var ConfigErrorCases = []struct {
	Name   string
	Config string
	// Want are substrings of the error, in the order: where, what, fix.
	Want []string
}{
	{"field name in the wrong case", configHead + `apps:
- name: web
  path: apps/web
  roles:
  - name: db
    upgradeorder: 1
`, []string{`unknown field "apps[0].roles[0].upgradeorder"`, `did you mean "upgradeOrder"`, "case-sensitive"}},
	{"misspelled field in the second app", configHead + `apps:
- name: web
  path: apps/web
- name: api
  path: apps/api
  selfheal: false
`, []string{`unknown field "apps[1].selfheal"`, `did you mean "selfHeal"`, "apps[1] takes: "}},
	{"misspelled top-level field", configHead + `app:
- name: web
  path: apps/web
`, []string{`unknown field "app"`, `did you mean "apps"`}},
	{"quoted boolean", configHead + `apps:
- name: web
  path: apps/web
  prune: "true"
`, []string{"apps[0].prune: ", `got the string "true", want true or false`, "remove the quotes"}},
	{"two apps with one name", configHead + `apps:
- name: web
  path: apps/web
- name: web
  path: apps/web-staging
`, []string{`apps[1].name: `, `duplicate app name "web" (apps[0] has it too)`, "rename one"}},
	{"app name is not a DNS label", configHead + `apps:
- name: Web_App
  path: apps/web
`, []string{"apps[0].name: ", `"Web_App" is not a valid name`, `write "web-app"`}},
	{"no source url", `apiVersion: roleout.dev/v1alpha1
kind: AgentConfig
source:
  branch: main
apps:
- name: web
  path: apps/web
`, []string{"source.url: ", "required", "such as https://"}},
	{"branch and tag", configHead + `  tag: v1.2.0
apps:
- name: web
  path: apps/web
`, []string{"source: ", `set only one of branch, tag, semver and commit; branch ("main") and tag ("v1.2.0") are set`, "remove the others"}},
	{"absolute app path", configHead + `apps:
- name: web
  path: /apps/web
`, []string{"apps[0].path: ", "must be relative and inside the repository, not absolute", `write "apps/web"`}},
	{"app path leaves the repository", configHead + `apps:
- name: web
  path: apps/../../shared
`, []string{"apps[0].path: ", `leaves the repository through ".."`, "from the repository root"}},
	{"timeout without a unit", configHead + `apps:
- name: web
  path: apps/web
  timeout: 5
`, []string{"apps[0].timeout: ", "got the number 5, which has no unit", `write "5s" or "5m"`}},
	{"duration in words", configHead + `schedule:
  interval: 5 minutes
apps:
- name: web
  path: apps/web
`, []string{"schedule.interval: ", `"5 minutes" is not a duration`, `such as "30s", "5m"`}},
	{"schedule cron out of range", configHead + `schedule:
  cron: "0 25 * * *"
apps:
- name: web
  path: apps/web
`, []string{"schedule.cron: ", `invalid cron expression "0 25 * * *": end of range (25) above maximum (23)`, `write five fields "minute hour day-of-month month day-of-week"`}},
	{"window cron in words, no duration", configHead + `apps:
- name: web
  path: apps/web
  windows:
  - kind: allow
    cron: mon-fri 9
`, []string{"apps[0].windows[0].cron: ", "expected 5 to 6 fields", `"0 9 * * 1-5" (09:00 on weekdays)`,
		"apps[0].windows[0].duration: ", "required", "such as 2h"}},
	{"negative upgradeOrder", configHead + `apps:
- name: web
  path: apps/web
  roles:
  - name: db
    upgradeOrder: -1
`, []string{"apps[0].roles[0].upgradeOrder: ", "must be 0 or more, got -1", "unorderedRoles: Last"}},
	{"role without a name", configHead + `apps:
- name: web
  path: apps/web
  roles:
  - upgradeOrder: 1
    kinds: [StatefulSet]
`, []string{"apps[0].roles[0].name: ", "required", "such as database"}},
	{"upgradeOrder quoted", configHead + `apps:
- name: web
  path: apps/web
  roles:
  - name: db
    upgradeOrder: "1"
`, []string{"apps[0].roles[0].upgradeOrder: ", `got the string "1", want a whole number`, `write 1, not "1"`}},
	{"kinds not a list", configHead + `apps:
- name: web
  path: apps/web
  roles:
  - name: db
    kinds: StatefulSet
`, []string{"apps[0].roles[0].kinds: ", "want a list", "write [StatefulSet]"}},
	{"kind misspelled", strings.Replace(configHead, "AgentConfig", "AgentConfg", 1) + `apps:
- name: web
  path: apps/web
`, []string{"kind: ", `must be AgentConfig, got "AgentConfg"`, "write kind: AgentConfig"}},
	{"apiVersion without alpha", strings.Replace(configHead, "v1alpha1", "v1", 1) + `apps:
- name: web
  path: apps/web
`, []string{"apiVersion: ", `must be roleout.dev/v1alpha1, got "roleout.dev/v1"`, "write apiVersion: roleout.dev/v1alpha1"}},
	{"tab in indentation", configHead + "apps:\n- name: web\n\tpath: apps/web\n",
		[]string{"invalid YAML: yaml: line 8: ", "found a tab character", "indent with spaces, not tabs"}},
	{"allowedKinds group with a version", configHead + `apps:
- name: web
  path: apps/web
  allowedKinds:
  - group: apps/v1
    kind: Deployment
`, []string{"apps[0].allowedKinds[0].group: ", `"apps/v1" is not an API group: it has a version`, `write the group alone, "apps"`}},
	{"kubeconfig and kubeconfigSecret", configHead + `apps:
- name: web
  path: apps/web
  kubeconfig: /etc/roleout/far.yaml
  kubeconfigSecret:
    name: far
`, []string{"apps[0].kubeconfigSecret: ", "set kubeconfig (a file) or kubeconfigSecret, not both", "remove one"}},
	{"unknown verify mode", configHead + `  verify:
    mode: commit
    pgpKeys: [keys/release.asc]
apps:
- name: web
  path: apps/web
`, []string{"source.verify.mode: ", `got "commit"`, "must be head (verify"}},
	{"role path with ..", configHead + `apps:
- name: web
  path: apps/web
  roles:
  - name: db
    paths: [../shared/db]
`, []string{"apps[0].roles[0].paths[0]: ", `"../shared/db" must not contain ".."`, "name a directory inside the repository"}},
}

// TestConfigErrors: every wrong config fails Load once, with an
// error that names the field, says what is wrong and what to write.
func TestConfigErrors(t *testing.T) {
	for _, tc := range ConfigErrorCases {
		t.Run(tc.Name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "agent.yaml")
			if err := os.WriteFile(path, []byte(tc.Config), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil {
				t.Fatal("Load accepted the config")
			}
			msg := err.Error()
			t.Logf("%s", msg)
			if !strings.HasPrefix(msg, path+": ") {
				t.Errorf("error does not start with the file name %s: %q", path, msg)
			}
			for _, want := range tc.Want {
				if !strings.Contains(msg, want) {
					t.Errorf("error does not contain %q:\n%s", want, msg)
				}
			}
		})
	}
}

func TestClosestName(t *testing.T) {
	names := []string{"name", "upgradeOrder", "selector", "kinds", "names", "paths"}
	for key, want := range map[string]string{
		"upgradeorder": "upgradeOrder", "upgradOrder": "upgradeOrder", "selctor": "selector",
		"kind": "kinds", "path": "paths", "timeout": "", "x": "",
	} {
		if got := closestName(key, names); got != want {
			t.Errorf("closestName(%q) = %q, want %q", key, got, want)
		}
	}
}
