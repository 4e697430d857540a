package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/roleout/roleout/agent/starter"
)

// initResult is what roleout init --output json printed, with the apps
// by name.
type initResult struct {
	Config       string        `json:"config"`
	Apps         []starter.App `json:"apps"`
	Untranslated []string      `json:"untranslated"`
	byName       map[string]starter.App
}

// runInit runs roleout init on repo (a URL or a directory), which must
// succeed, and returns what it printed.
func runInit(t *testing.T, repo string) initResult {
	t.Helper()
	code, out, errOut := cli("init", repo, "--output", "json")
	if code != exitOK {
		t.Fatalf("roleout init: exit %d: %s", code, errOut)
	}
	var res initResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("init --output json: %v\n%s", err, out)
	}
	res.byName = map[string]starter.App{}
	for _, a := range res.Apps {
		res.byName[a.Name] = a
	}
	return res
}

// writeInitConfig writes init's config with a cache of the test's and
// the local control plane's kubeconfig, plus more (top-level YAML), and
// returns its path.
func writeInitConfig(t *testing.T, res initResult, more string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.yaml")
	text := res.Config + "cacheDir: " + t.TempDir() + "\nkubeconfig: " + cluster.Kubeconfig + "\n" + more
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
