package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigErrors: a wrong agent config stops `roleout run --once` and
// `roleout plan --config` with exit 2 and an error on stderr that names
// the file and the field, says what is wrong and what to write (the full
// table of wrong configs is agent.TestConfigErrors).
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	const head = "apiVersion: roleout.dev/v1alpha1\nkind: AgentConfig\nsource:\n  url: https://git.example/config.git\n  branch: main\n"
	cases := []struct {
		name   string
		args   []string // before --config F
		config string
		want   []string
	}{
		{"run: field name in the wrong case", []string{"run", "--once"},
			head + "apps:\n- name: web\n  path: apps/web\n  roles:\n  - name: db\n    upgradeorder: 1\n",
			[]string{`unknown field "apps[0].roles[0].upgradeorder"`, `did you mean "upgradeOrder"`}},
		{"run: timeout without a unit", []string{"run", "--once"},
			head + "apps:\n- name: web\n  path: apps/web\n  timeout: 5\n",
			[]string{"apps[0].timeout: got the number 5, which has no unit", `write "5s" or "5m"`}},
		{"plan: two apps with one name", []string{"plan", "--app", "web"},
			head + "apps:\n- name: web\n  path: apps/web\n- name: web\n  path: /apps/web-staging\n",
			[]string{`apps[1].name: duplicate app name "web" (apps[0] has it too)`, "rename one",
				`apps[1].path: "/apps/web-staging" must be relative`, `write "apps/web-staging"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "agent.yaml")
			if err := os.WriteFile(path, []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := cli(append(tc.args, "--config", path)...)
			t.Logf("stderr:\n%s", stderr)
			if code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			for _, want := range append([]string{path + ": "}, tc.want...) {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr does not contain %q", want)
				}
			}
		})
	}
}
