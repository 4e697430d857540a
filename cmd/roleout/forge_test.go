package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testforge"
)

// TestForgeGitea runs the whole flow against a real Gitea: a pull
// request's head gets a status and one comment; a new head edits that
// comment; a head that fails validation gets a failure with the reason,
// and the comment says so; the merge is rolled out with pending, then
// success, on the merge commit.
func TestForgeGitea(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	g := testforge.StartGitea(t)
	const ns, app = "forge-e2e", "forge-e2e"
	repo := g.CreateRepo(t, "config")
	v1 := repo.Commit(t, "main", "v1", threeWaves(ns, "v1"))

	cfgPath := giteaConfig(t, g, "config", app, ns, "")
	runOnce := func(want int) {
		t.Helper()
		if code, _, logs := cli("run", "--once", "--config", cfgPath); code != want {
			t.Fatalf("run --once: exit %d, want %d\n%s", code, want, lastLines(logs, 20))
		}
	}
	// states are a commit's statuses of context roleout/<app>, oldest first.
	states := func(sha string) []testforge.Status {
		t.Helper()
		var out []testforge.Status
		for _, s := range g.Statuses(t, "config", sha) {
			if s.Context == "roleout/"+app {
				out = append(out, s)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		return out
	}
	runOnce(exitOK)
	if got := states(v1); len(got) < 2 || got[0].State != "pending" || got[len(got)-1].State != "success" {
		t.Errorf("the first rollout's statuses on %s: %+v, want pending, then success", v1[:7], got)
	}

	// A pull request: its head gets a status and one comment.
	comment := func(pr int) testforge.Comment {
		t.Helper()
		cs := g.Comments(t, "config", pr)
		if len(cs) != 1 {
			t.Fatalf("pull request %d has %d comments, want 1: %+v", pr, len(cs), cs)
		}
		return cs[0]
	}
	v2 := repo.Commit(t, "feature", "c to v2", map[string]string{"apps/three/c.yaml": threeWaves(ns, "v2")["apps/three/c.yaml"]})
	pr := g.OpenPullRequest(t, "config", "feature", "<b>c</b> to v2")
	runOnce(exitOK)
	if got := states(v2); len(got) != 1 || got[0].State != "success" || !strings.Contains(got[0].Description, "1 role(s) change, 1 workload(s) restart pods") {
		t.Errorf("the pull request's head status: %+v", got)
	}
	first := comment(pr)
	for _, want := range []string{"<!-- roleout -->", "| forge-e2e | 3 | c | **update** |", "Deployment/c → `ReplicaSet c-", "<details><summary>forge-e2e · role c"} {
		if !strings.Contains(first.Body, want) {
			t.Errorf("the comment lacks %q:\n%s", want, first.Body)
		}
	}

	// A new head: the same comment, edited.
	v3 := repo.Commit(t, "feature", "b to v3", map[string]string{"apps/three/b.yaml": threeWaves(ns, "v3")["apps/three/b.yaml"]})
	runOnce(exitOK)
	if c := comment(pr); c.ID != first.ID || !strings.Contains(c.Body, "| forge-e2e | 2 | b | **update** |") {
		t.Errorf("after a new head: comment %d (first %d):\n%s", c.ID, first.ID, c.Body)
	}
	if got := states(v3); len(got) != 1 || got[0].State != "success" {
		t.Errorf("the new head's status: %+v", got)
	}

	// A head that fails validation: failure with the reason.
	bad := strings.Replace(threeWaves(ns, "v3")["apps/three/b.yaml"], "replicas: 2", "replicas: two", 1)
	v4 := repo.Commit(t, "feature", "b invalid", map[string]string{"apps/three/b.yaml": bad})
	runOnce(exitOK)
	if got := states(v4); len(got) != 1 || got[0].State != "failure" || !strings.Contains(got[0].Description, "cannot be rolled out") || !strings.Contains(got[0].Description, "replicas") {
		t.Errorf("the invalid head's status: %+v", got)
	}
	if c := comment(pr); c.ID != first.ID || !strings.Contains(c.Body, "cannot be rolled out at this head") {
		t.Errorf("the comment of an invalid head:\n%s", c.Body)
	}

	// Fixed and merged: the merge commit is rolled out, pending then success.
	repo.Commit(t, "feature", "b valid", map[string]string{"apps/three/b.yaml": threeWaves(ns, "v3")["apps/three/b.yaml"]})
	runOnce(exitOK)
	merge := g.Merge(t, "config", pr)
	runOnce(exitOK)
	got := states(merge)
	if len(got) < 2 || got[0].State != "pending" || got[len(got)-1].State != "success" || !strings.Contains(got[len(got)-1].Description, "rolled out") {
		t.Errorf("the merge commit's statuses: %+v, want pending, then success", got)
	}
	if cs := g.Comments(t, "config", pr); len(cs) != 1 {
		t.Errorf("pull request %d has %d comments after the merge, want 1", pr, len(cs))
	}
}

// TestForgeGiteaWebhook: Gitea's pull-request webhook, signed with the
// hook secret, reaches roleout run's /hook and the new pull request is
// previewed at once, not at the next poll an hour away.
func TestForgeGiteaWebhook(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	g := testforge.StartGitea(t)
	const ns, app = "forge-hook", "forge-hook"
	repo := g.CreateRepo(t, "hooked")
	repo.Commit(t, "main", "v1", threeWaves(ns, "v1"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	hookSecret := filepath.Join(t.TempDir(), "hook")
	if err := os.WriteFile(hookSecret, []byte("hook-s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgPath := giteaConfig(t, g, "hooked", app, ns, fmt.Sprintf("schedule: {interval: 1h}\nhttp: {address: %q, hookSecretFile: %q}\n", addr, hookSecret))
	if err := g.API("POST", "/repos/"+g.User+"/hooked/hooks", map[string]any{"type": "gitea", "active": true, "events": []string{"pull_request"},
		"config": map[string]string{"url": "http://" + addr + "/hook", "content_type": "json", "secret": "hook-s3cret"}}, nil); err != nil {
		t.Fatal(err)
	}
	logs, _ := startAgent(t, cfgPath)
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(logs.String(), "rolled out") && !strings.Contains(logs.String(), "→ rev 1"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first rollout did not happen")
		}
	}
	repo.Commit(t, "feature", "c to v2", map[string]string{"apps/three/c.yaml": threeWaves(ns, "v2")["apps/three/c.yaml"]})
	pr := g.OpenPullRequest(t, "hooked", "feature", "c to v2")
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if cs := g.Comments(t, "hooked", pr); len(cs) == 1 && strings.Contains(cs[0].Body, "| forge-hook | 3 | c | **update** |") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no preview comment within 90 s of the pull request (the next poll is an hour away)")
		}
	}
	if strings.Contains(logs.String(), g.Token) {
		t.Error("roleout run's log carries the forge token")
	}
	if !strings.Contains(logs.String(), "poll triggered") && !strings.Contains(logs.String(), "preview written") {
		t.Errorf("roleout run's log does not show the hook's preview:\n%s", lastLines(logs.String(), 20))
	}
}

// giteaConfig writes an agent config of app (apps/three in namespace ns)
// from g's repository repo, previewing its pull requests and posting to
// g, with the admin's credentials in files, and extra lines.
func giteaConfig(t *testing.T, g *testforge.Gitea, repo, app, ns, extra string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{"user": g.User, "pass": g.Token, "token": g.Token} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfgPath := writeConfig(t, g.URL+"/"+g.User+"/"+repo+".git", "- {name: "+app+", path: apps/three, namespace: "+ns+", timeout: 30s}\n"+
		fmt.Sprintf("forge: {type: gitea, url: %q, tokenFile: %q}\n", g.URL, filepath.Join(dir, "token"))+extra)
	rewriteFile(t, cfgPath, func(s string) string {
		return strings.Replace(s, "source: {", fmt.Sprintf("source: {auth: {usernameFile: %q, passwordFile: %q}, pullRequests: {refs: [\"refs/pull/*/head\"]}, ", filepath.Join(dir, "user"), filepath.Join(dir, "pass")), 1)
	})
	return cfgPath
}
