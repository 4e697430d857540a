package config

import (
	"strings"
	"testing"
)

// FuzzParse feeds the agent config parser arbitrary input: it must
// never panic, and every error must name the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte(minimalConfig))
	f.Add([]byte("apiVersion: roleout.dev/v1alpha1\nkind: AgentConfig\napps: [{name: a, path: '..'}]\n"))
	f.Add([]byte("source: {url: 1, branch: [x]}\napps: {}\n"))
	f.Add([]byte("{{{"))
	f.Add([]byte("schedule: {cron: '* * * * * * *'}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "agent.yaml")
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
