package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/webhook"
)

// The previews flood (scenario 13): floodHeads pull requests open
// against one app of floodObjects objects.
const (
	floodApp     = "bench-flood"
	floodHeads   = 300
	floodObjects = 40
)

// floodFiles is the flood app at version v: ConfigMaps in two roles and
// a Deployment of two kwok pods in each, every object holding v.
func floodFiles(v string) map[string]string {
	files := map[string]string{"apps/flood/kustomization.yaml": "namespace: " + floodApp + "\nresources: [first.yaml, second.yaml]\n"}
	for r, role := range []string{"first", "second"} {
		var b strings.Builder
		for j := range floodObjects/2 - 1 {
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d-%d, annotations: {roleout.dev/role: %s}}\ndata: {v: %q}\n", r, j, role, v)
		}
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, annotations: {roleout.dev/role: %[1]s, roleout.dev/upgrade-order: "%[2]d"}}
spec:
  replicas: 2
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec: {containers: [{name: main, image: "registry.example/%[1]s:%[3]s"}]}
`, role, r+1, v)
		files["apps/flood/"+role+".yaml"] = b.String()
	}
	return files
}

// previewFlood is scenario 13: how long one commit to the followed
// branch takes to roll out, from the hook's delivery to the status that
// says Succeeded, with no pull request open and then with floodHeads
// open (their previews under way, source.pullRequests' defaults; the
// schedule is 2 s, so rounds run back to back); then how many polls and
// how long the agent took to preview every head, and how many previews
// record an error (none should).
func (e *env) previewFlood(ctx context.Context) error {
	repo, err := e.git.NewRepo("flood")
	if err != nil {
		return err
	}
	if err := e.createNamespace(ctx, floodApp); err != nil {
		return err
	}
	head, err := repo.Commit("main", "v0", floodFiles("v0"))
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := l.Addr().String()
	l.Close()
	secret := filepath.Join(e.work, "flood-hook-secret")
	if err := os.WriteFile(secret, []byte("flood\n"), 0o600); err != nil {
		return err
	}
	config := filepath.Join(e.work, "flood.yaml")
	text := fmt.Sprintf(`apiVersion: roleout.dev/v1alpha1
kind: AgentConfig
source: {url: %q, branch: main, pullRequests: {refs: ["refs/pull/*/head"]}}
cacheDir: %q
kubeconfig: %q
schedule: {interval: 2s}
http: {address: %q, hookSecretFile: %q}
apps:
- {name: %s, path: apps/flood, namespace: %[6]s, timeout: 3m}
`, repo.URL(), filepath.Join(e.work, "cache-flood"), e.cluster.Kubeconfig, addr, secret, floodApp)
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		return err
	}
	p, err := e.startAgent(ctx, "flood", config)
	if err != nil {
		return err
	}
	defer p.stop()
	if err := waitSucceeded(ctx, p, repo, head, 3*time.Minute, floodApp); err != nil {
		return err
	}
	version := 0
	rollout := func(series string) error {
		version++
		head, err := repo.Commit("main", fmt.Sprintf("v%d", version), floodFiles(fmt.Sprintf("v%d", version)))
		if err != nil {
			return err
		}
		start := time.Now()
		if err := hook(addr, []byte("flood")); err != nil {
			return err
		}
		for {
			if st, err := readStatus(repo, floodApp); err == nil && st.SourceRevision == "main@sha1:"+head && st.Phase == status.PhaseSucceeded {
				break
			}
			if time.Since(start) > 3*time.Minute {
				return fmt.Errorf("v%d did not roll out in 3 min:\n%s", version, lastLines(p.log(), 15))
			}
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return err
			}
		}
		e.res.add(series, time.Since(start), nil)
		return sleep(ctx, 3*time.Second) // the rollout's watches settle
	}
	for range e.pairs {
		if err := rollout("PreviewFlood/rollout-no-prs"); err != nil {
			return err
		}
	}
	e.logf("scenario 13: opening %d pull requests", floodHeads)
	base := head
	for i := 1; i <= floodHeads; i++ {
		branch := fmt.Sprintf("pr/%d", i)
		if err := repo.SetRef("refs/heads/"+branch, base); err != nil {
			return err
		}
		sha, err := repo.Commit(branch, fmt.Sprintf("pull request %d", i), floodFiles(fmt.Sprintf("pr%d", i)))
		if err != nil {
			return err
		}
		if err := repo.PullRequest(i, sha); err != nil {
			return err
		}
	}
	opened := time.Now()
	if err := p.waitLog(ctx, "preview written", 1, 2*time.Minute); err != nil {
		return err
	}
	for range e.pairs {
		if err := rollout("PreviewFlood/rollout-300-prs"); err != nil {
			return err
		}
	}
	// Every head previewed: count the rounds it took.
	for {
		done, failed := floodPreviews(repo)
		if done == floodHeads {
			took := time.Since(opened)
			rounds := 0 // one status commit per round that wrote
			if msgs, err := repo.Messages(statusBranch); err == nil {
				for _, m := range msgs {
					if strings.Contains(m, floodApp+" previews:") {
						rounds++
					}
				}
			}
			e.res.add("PreviewFlood/all-previewed", took, map[string]float64{"failed": float64(failed), "rounds": float64(rounds)})
			e.res.addRow(reportRow("13", fmt.Sprintf("%d pull requests: every head previewed (previews that record an error)", floodHeads),
				fmt.Sprintf("%s (%d failed)", took.Round(time.Second), failed)))
			break
		}
		if time.Since(opened) > 30*time.Minute {
			return fmt.Errorf("%d of %d heads previewed in 30 min", done, floodHeads)
		}
		if err := sleep(ctx, time.Second); err != nil {
			return err
		}
	}
	none, flood := e.res.get("PreviewFlood/rollout-no-prs"), e.res.get("PreviewFlood/rollout-300-prs")
	e.res.addRow(row{num: "13", scenario: "previews flood", measure: fmt.Sprintf("one commit to main (%d objects): hook to Succeeded, %d pull requests open vs none", floodObjects, floodHeads),
		roleout: fmtDur(flood), peer: fmtDur(none), ratio: fmt.Sprintf("%.2f×", flood.med("ns/op")/none.med("ns/op")), target: "≤ 1.2×",
		verdict: verdict(flood.med("ns/op") <= 1.2*none.med("ns/op"))})
	return nil
}

// hook delivers a signed push event to the agent's /hook.
func hook(addr string, secret []byte) error {
	body := []byte(`{"ref":"refs/heads/main"}`)
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/hook", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set(webhook.SignatureHeader, webhook.Sign(secret, body, time.Now()))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("hook: %s", resp.Status)
	}
	return nil
}

// floodPreviews counts the flood app's previews on the status branch,
// and those that record an error.
func floodPreviews(repo *testgit.Repo) (done, failed int) {
	names, err := exec.Command("git", "-C", repo.BarePath(), "ls-tree", "--name-only", statusBranch, floodApp+"/previews/").Output()
	if err != nil {
		return 0, 0
	}
	for _, name := range strings.Fields(string(names)) {
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := repo.Show(statusBranch, name)
		if err != nil {
			continue
		}
		var p status.Preview
		if json.Unmarshal([]byte(data), &p) == nil {
			done++
			if p.Error != "" {
				failed++
			}
		}
	}
	return done, failed
}
