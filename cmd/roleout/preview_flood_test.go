package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// TestPreviewFloodLeavesThePoll opens 40 pull requests against an agent
// that polls only when its hook says so, with
// source.pullRequests.maxHeadsPerPoll 10: each poll previews at most 10
// heads, after the poll and apart from it, and the others wait (none is
// recorded as failed); a commit to the followed branch rolls out at the
// next poll while 20 heads still wait; four polls preview them all.
func TestPreviewFloodLeavesThePoll(t *testing.T) {
	t.Parallel()
	const ns, heads = "flood", 40
	_, repo, config := faultSetup(t, ns)
	base, err := repo.Rev("refs/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // preview name → head
	for i := 1; i <= heads; i++ {
		branch := fmt.Sprintf("pr/%d", i)
		if err := repo.SetRef("refs/heads/"+branch, base); err != nil {
			t.Fatal(err)
		}
		sha, err := repo.Commit(branch, "pull request "+strconv.Itoa(i), threeWaves(ns, fmt.Sprintf("pr%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.PullRequest(i, sha); err != nil {
			t.Fatal(err)
		}
		want[fmt.Sprintf("pull-%d-head", i)] = sha
	}
	secret := filepath.Join(t.TempDir(), "hook-secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddress(t)
	rewriteFile(t, config, func(s string) string {
		return strings.NewReplacer("schedule: {interval: 1s}", "schedule: {interval: 1h}",
			`http: {address: "-"}`, fmt.Sprintf("http: {address: %q, hookSecretFile: %q}", addr, secret),
			"source: {", `source: {pullRequests: {refs: ["refs/pull/*/head"], maxHeadsPerPoll: 10}, `).Replace(s)
	})
	var out syncBuffer
	cmd := startRoleout(t, &out, "run", "--config", config)
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	if !waitForStatus(t, repo, ns, time.Minute, succeededAt(base)) {
		t.Fatalf("the first poll did not roll out:\n%s", out.String())
	}
	metric := func(name string) float64 {
		t.Helper()
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindSubmatch(text)
		if m == nil {
			return -1
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	// waitRound waits until the round after a poll leaves waiting heads
	// waiting and previewed on the branch.
	waitRound := func(round, waiting int) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for metric("roleout_previews_waiting") != float64(waiting) || len(previews(t, repo, ns)) != heads-waiting {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %v heads waiting, %d previewed; want %d and %d:\n%s", round,
					metric("roleout_previews_waiting"), len(previews(t, repo, ns)), waiting, heads-waiting, lastLines(out.String(), 40))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	trigger := func() {
		t.Helper()
		if code := deliverHook(t, addr, "s3cret"); code != http.StatusAccepted {
			t.Fatalf("hook: %d", code)
		}
	}
	waitRound(1, 30)
	// The web view lists them, in the order they will be previewed.
	resp, err := http.Get("http://" + addr + "/api/v1/apps")
	if err != nil {
		t.Fatal(err)
	}
	var view struct {
		PreviewsWaiting []struct{ Ref, Commit string } `json:"previewsWaiting"`
	}
	err = json.NewDecoder(resp.Body).Decode(&view)
	resp.Body.Close()
	if err != nil || len(view.PreviewsWaiting) != 30 || view.PreviewsWaiting[0].Ref != "refs/pull/30/head" {
		t.Errorf("the web view lists %d heads waiting (%v), want 30, refs/pull/30/head first: %+v", len(view.PreviewsWaiting), err, view.PreviewsWaiting)
	}
	second, err := repo.Commit("main", "v2", threeWaves(ns, "v2"))
	if err != nil {
		t.Fatal(err)
	}
	trigger()
	if !waitForStatus(t, repo, ns, time.Minute, succeededAt(second)) {
		t.Fatalf("the commit to main did not roll out:\n%s", lastLines(out.String(), 40))
	}
	waitRound(2, 20)
	trigger()
	waitRound(3, 10)
	trigger()
	waitRound(4, 0)
	got := previews(t, repo, ns)
	for name, head := range want {
		p, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: no preview", name)
		case p.Commit != head || p.Error != "" || p.Plan == nil:
			t.Errorf("%s: preview of %s (want %s), error %q", name, p.Commit, head, p.Error)
		}
	}
	if d := metric(`roleout_previews_total{result="deferred"}`); d != 30+20+10 {
		t.Errorf("roleout_previews_total{result=deferred} = %v, want 60", d)
	}
}

// previews returns app's previews on the status branch, by name.
func previews(t *testing.T, repo *testgit.Repo, app string) map[string]status.Preview {
	t.Helper()
	names, err := exec.Command("git", "-C", repo.BarePath(), "ls-tree", "--name-only", "roleout/status", app+"/previews/").Output()
	if err != nil {
		return nil // no status branch or no previews yet
	}
	out := map[string]status.Preview{}
	for _, name := range strings.Fields(string(names)) {
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := repo.Show("roleout/status", name)
		if err != nil {
			t.Fatal(err)
		}
		var p status.Preview
		if err := json.Unmarshal([]byte(data), &p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[strings.TrimSuffix(filepath.Base(name), ".json")] = p
	}
	return out
}
