package agent

import (
	"strings"
	"testing"
)

// FuzzParseConfig feeds the agent config parser arbitrary input: it must
// never panic, and every error must name the file.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(minimalConfig))
	f.Add([]byte("apiVersion: roleout.dev/v1alpha1\nkind: AgentConfig\napps: [{name: a, path: '..'}]\n"))
	f.Add([]byte("source: {url: 1, branch: [x]}\napps: {}\n"))
	f.Add([]byte("{{{"))
	f.Add([]byte("schedule: {cron: '* * * * * * *'}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data, "agent.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "agent.yaml") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if len(c.Apps) == 0 || c.Source.URL == "" {
			t.Errorf("a config without apps or source URL was accepted: %+v", c)
		}
	})
}

// FuzzParseStatus feeds the status file parser arbitrary input: it must
// never panic, and an error must say how to fix the file.
func FuzzParseStatus(f *testing.F) {
	f.Add([]byte("apiVersion: roleout.dev/v1alpha1\nkind: AppStatus\napp: web\nroles: [{name: db, revision: 1, result: Applied}]\n"))
	f.Add([]byte("kind: AppStatus\nroles: {not: a list}\n"))
	f.Add([]byte("- a\n- b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := parseStatus(data, "web/status.yaml"); err != nil && !strings.Contains(err.Error(), "web/status.yaml") {
			t.Errorf("error does not name the file: %v", err)
		}
	})
}
