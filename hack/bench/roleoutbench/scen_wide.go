package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// The wide shape (scenario 14): wideApps apps of wideObjects ConfigMaps
// each, all in one namespace, shared by replicas with sharding.mode
// dynamic.
const (
	wideApps    = 1000
	wideObjects = 5
	wideGroup   = "bench-wide"
	wideNS      = "bench-wide"
)

// wideFiles returns the wide apps at version v: every ConfigMap holds v.
func wideFiles(v int) map[string]string {
	files := map[string]string{}
	for i := range wideApps {
		app := fmt.Sprintf("wide-%d", i)
		files["apps/"+app+"/kustomization.yaml"] = "namespace: " + wideNS + "\nresources: [config.yaml]\n"
		var b strings.Builder
		for j := range wideObjects {
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s-%d, annotations: {roleout.dev/role: config}}\ndata: {v: \"%d\"}\n", app, j, v)
		}
		files["apps/"+app+"/config.yaml"] = b.String()
	}
	return files
}

// wide is scenario 14: 1,000 apps × 5 objects. One replica installs
// them; one commit then changes every app, rolled out by 1 replica and,
// after two more join, another by 3. For each: the time until every
// app's status says Succeeded at the commit (every record present), and
// the status branch's pushes and git bytes per status write.
func (e *env) wide(ctx context.Context) error {
	repo, err := e.git.NewRepo("wide")
	if err != nil {
		return err
	}
	if err := e.createNamespace(ctx, wideNS); err != nil {
		return err
	}
	var apps []string
	text := fmt.Sprintf("apiVersion: roleout.dev/v1alpha1\nkind: AgentConfig\nsource: {url: %q, branch: main}\napps:\n", repo.URL())
	for i := range wideApps {
		app := fmt.Sprintf("wide-%d", i)
		apps = append(apps, app)
		text += fmt.Sprintf("- {name: %[1]s, path: apps/%[1]s, namespace: %s, timeout: 5m}\n", app, wideNS)
	}
	text += fmt.Sprintf("schedule: {interval: 5s}\nhttp: {address: \"-\"}\nsharding: {mode: dynamic, name: %s}\n", wideGroup)
	var procs []*agentProc
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	start := func(id string) error {
		config := filepath.Join(e.work, id+".yaml")
		t := text + fmt.Sprintf("cacheDir: %q\nkubeconfig: %q\n", filepath.Join(e.work, "cache-"+id), e.cluster.Kubeconfig)
		if err := os.WriteFile(config, []byte(t), 0o644); err != nil {
			return err
		}
		p, err := e.startAgentArgs(ctx, id, []string{"run", "--config", config, "--identity", id, "--log-level", "info"})
		if err != nil {
			return err
		}
		procs = append(procs, p)
		return nil
	}
	steps := []struct {
		what  string
		start []string
	}{
		{"install", []string{"w1"}},
		{"every app changed", nil},
		{"every app changed", []string{"w2", "w3"}},
	}
	for v, step := range steps {
		for _, id := range step.start {
			if err := start(id); err != nil {
				return err
			}
		}
		if len(step.start) > 0 && v > 0 {
			// Let the new replicas take their share before the commit.
			if err := sleep(ctx, 30*time.Second); err != nil {
				return err
			}
		}
		e.git.ResetCounts()
		began := time.Now()
		head, err := repo.Commit("main", fmt.Sprintf("v%d", v+1), wideFiles(v+1))
		if err != nil {
			return err
		}
		if err := waitWide(ctx, procs, repo, head, apps, 20*time.Minute); err != nil {
			return err
		}
		took := time.Since(began)
		c := e.git.Counts("wide")
		pushed, fetched := e.git.Bytes("wide", testgit.ReceivePack), e.git.Bytes("wide", testgit.UploadPack)
		pushes := max(c[testgit.ReceivePack], 1)
		series := fmt.Sprintf("Wide/%s-%d-replicas", strings.ReplaceAll(step.what, " ", "-"), len(procs))
		e.res.add(series, took, map[string]float64{"pushes": float64(c[testgit.ReceivePack]), "bytes-per-push": float64(pushed) / float64(pushes), "fetched-bytes": float64(fetched)})
		e.logf("    %s with %d replica(s): every record present in %s; %d status pushes of %d KiB each, %d KiB fetched in %d fetches",
			step.what, len(procs), took.Round(time.Second), c[testgit.ReceivePack], pushed/int64(pushes)>>10, fetched>>10, c[testgit.UploadPack])
		e.res.addRow(reportRow("14", fmt.Sprintf("%d apps × %d objects, %s with %d replica(s): time to every record; pushes, bytes per push", wideApps, wideObjects, step.what, len(procs)),
			fmt.Sprintf("%s; %d pushes, %.1f KiB each", took.Round(time.Second), c[testgit.ReceivePack], float64(pushed)/float64(pushes)/1024)))
	}
	return nil
}

// waitWide waits until every app's status on the status branch says
// Succeeded at head, reading them all with one git process per pass.
func waitWide(ctx context.Context, procs []*agentProc, repo *testgit.Repo, head string, apps []string, d time.Duration) error {
	want := "main@sha1:" + head
	deadline := time.Now().Add(d)
	for {
		sts, err := statusesOf(repo, apps)
		if err == nil {
			missing := 0
			for _, app := range apps {
				if st := sts[app]; st == nil || st.SourceRevision != want || st.Phase != status.PhaseSucceeded {
					missing++
				}
			}
			if missing == 0 {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%d of %d apps not Succeeded at %s within %s", missing, len(apps), head[:7], d)
			}
		}
		for _, p := range procs {
			if err := p.alive(); err != nil {
				return err
			}
		}
		if err := sleep(ctx, 2*time.Second); err != nil {
			return err
		}
	}
}

// statusesOf reads every app's status.yaml from the status branch with
// one `git cat-file --batch`.
func statusesOf(repo *testgit.Repo, apps []string) (map[string]*status.App, error) {
	var in strings.Builder
	for _, app := range apps {
		fmt.Fprintf(&in, "%s:%s/status.yaml\n", statusBranch, app)
	}
	cmd := exec.Command("git", "--git-dir", repo.BarePath(), "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { _ = cmd.Wait() }()
	r := bufio.NewReader(out)
	sts := map[string]*status.App{}
	for _, app := range apps {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		f := strings.Fields(line)
		if len(f) != 3 { // "<obj> missing"
			continue
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, err
		}
		data := make([]byte, n+1) // and the newline after it
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, err
		}
		var st status.App
		if yaml.Unmarshal(data[:n], &st) == nil {
			sts[app] = &st
		}
	}
	return sts, nil
}
