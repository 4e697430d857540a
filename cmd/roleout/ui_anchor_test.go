package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/roleout/roleout/internal/testgit"
)

// startUI starts roleout ui with args and returns the URL it prints and
// its stderr; it is stopped when the test ends.
func startUI(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	errOut := &syncBuffer{}
	cmd := exec.Command(roleoutBinary(t), append([]string{"ui"}, args...)...)
	cmd.Stderr = errOut
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`at (https?://\S+/) `).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("roleout ui printed %q (%v); stderr:\n%s", line, err, errOut.String())
	}
	return m[1], errOut
}

// runFor runs the roleout binary with args for at most d: its exit code
// (-1 when it was still running, and was stopped) and its output.
func runFor(t *testing.T, d time.Duration, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	out, err := exec.CommandContext(ctx, roleoutBinary(t), args...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return -1, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	case err != nil:
		t.Fatal(err)
	}
	return 0, string(out)
}

// viewApps is /api/v1/apps: the commit read, why a read failed, and
// each app's recorded revision.
type viewApps struct {
	Commit string `json:"commit"`
	Error  string `json:"error"`
	Apps   []struct {
		App      string `json:"app"`
		Revision string `json:"revision"`
	} `json:"apps"`
}

func getViewApps(t *testing.T, base string) viewApps {
	t.Helper()
	code, body := viewGet(t, base+"api/v1/apps", "")
	var out viewApps
	if code != 200 || json.Unmarshal([]byte(body), &out) != nil {
		t.Fatalf("GET %sapi/v1/apps: %d %s", base, code, body)
	}
	return out
}

// TestUIReadsThroughTheAnchor: an agent signs its status branch and
// anchors its last head in its cluster; someone with push rights
// replays v1's signed records on top (a merge, first parent the old
// head). roleout ui, like the agent, refuses that branch and says why,
// instead of showing v1 as the app's last rollout. Without the agent's
// cluster it exits and names --unanchored; with --unanchored it reads
// the branch as it is and warns.
func TestUIReadsThroughTheAnchor(t *testing.T) {
	t.Parallel()
	const ns = "ui-anchor"
	statusKey := testgit.NewSSHKey(t, "roleout@example.com")
	_, repo, config, release := forgedStatusSetup(t, ns, &statusKey)
	v1, _ := repo.Rev("refs/heads/main")
	old, err := repo.Rev("refs/heads/roleout/status")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CommitSigned("main", "v2", threeWaves(ns, "v2"), release); err != nil {
		t.Fatal(err)
	}
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("v2: exit %d\n%s", code, logs)
	}
	newer, err := repo.Rev("refs/heads/roleout/status")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.MergeCommit("roleout/status", old, newer, "replay v1's records"); err != nil {
		t.Fatal(err)
	}

	base, _ := startUI(t, "--config", config, "--listen", "127.0.0.1:0")
	got := getViewApps(t, base)
	if !strings.Contains(got.Error, "the last head this agent wrote") {
		t.Errorf("roleout ui on a replayed status branch: error %q, want the anchor's refusal", got.Error)
	}
	for _, a := range got.Apps {
		if a.Revision == "main@sha1:"+v1 {
			t.Errorf("roleout ui shows app %s at the replayed revision v1 (%s)", a.App, v1[:7])
		}
	}

	// The agent's cluster out of reach.
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(t.TempDir(), "dead.kubeconfig")
	if err := os.WriteFile(dead, []byte(`apiVersion: v1
kind: Config
clusters: [{name: dead, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: dead, context: {cluster: dead, user: u}}]
current-context: dead
`), 0o600); err != nil {
		t.Fatal(err)
	}
	offline := filepath.Join(t.TempDir(), "agent.yaml")
	kubeconfigLine := regexp.MustCompile(`(?m)^kubeconfig: .*$`)
	if err := os.WriteFile(offline, kubeconfigLine.ReplaceAll(data, []byte("kubeconfig: "+dead)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := runFor(t, time.Minute, "ui", "--config", offline, "--listen", "127.0.0.1:0")
	if code != exitError || !strings.Contains(out, "roleout-status-anchor") || !strings.Contains(out, "--unanchored") {
		t.Errorf("roleout ui without the agent's cluster: exit %d, want %d naming the anchor and --unanchored:\n%s", code, exitError, out)
	}
	base, errOut := startUI(t, "--config", offline, "--listen", "127.0.0.1:0", "--unanchored")
	if got := getViewApps(t, base); got.Error != "" {
		t.Errorf("roleout ui --unanchored: error %q, want the branch read as it is", got.Error)
	}
	if !strings.Contains(errOut.String(), "without the anchor") {
		t.Errorf("roleout ui --unanchored does not warn:\n%s", errOut.String())
	}
}
