package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

const steps = 6

// run is the demo.
func run(ctx context.Context, o options, w *os.File) error {
	o.dir, o.roleout, o.examples = abs(o.dir), abs(o.roleout), abs(o.examples)
	started := time.Now()
	step(w, 1, steps, "local control plane (etcd, kube-apiserver, controller manager, scheduler, kwok)")
	kubeconfig, stopCluster, err := startCluster(ctx, o, w)
	if err != nil {
		return err
	}
	if o.teardown {
		defer stopCluster()
	}
	step(w, 2, steps, "a git repository made from %s, served over HTTP by git http-backend", rel(o.examples))
	repo, stopGit, err := startGit(o, w)
	if err != nil {
		return err
	}
	if o.teardown {
		defer stopGit()
	}
	if _, err := repo.CommitDir("main", "llm-serving: prefill, decode and router", o.examples, ""); err != nil {
		return err
	}
	config, err := writeAgentConfig(o, repo.URL(), kubeconfig)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "repository %s, agent config %s\n", repo.URL(), rel(config))

	step(w, 3, steps, "first rollout: prefill (upgradeOrder 1) → decode (2) → router (3), each healthy before the next")
	if err := roleoutCmd(ctx, o, w, "run", "--once", "--config", config, "--log-format", "pretty"); err != nil {
		return fmt.Errorf("first rollout: %w", err)
	}
	if err := roleoutCmd(ctx, o, w, "history", "--config", config, "--app", "llm-serving"); err != nil {
		return err
	}

	step(w, 4, steps, "a new engine image for the decode role only")
	if _, err := repo.Commit("main", "decode: engine 1.4.1", map[string]string{
		"overlays/dev/kustomization.yaml": devOverlayWithDecodeImage(o),
	}); err != nil {
		return err
	}
	if err := roleoutCmd(ctx, o, w, "plan", "--config", config, "--app", "llm-serving"); err != nil {
		return err
	}

	step(w, 5, steps, "second rollout: only decode rolls; predicted next to observed")
	if err := roleoutCmd(ctx, o, w, "run", "--once", "--config", config, "--log-format", "pretty"); err != nil {
		return fmt.Errorf("second rollout: %w", err)
	}
	if err := roleoutCmd(ctx, o, w, "history", "--config", config, "--app", "llm-serving"); err != nil {
		return err
	}

	step(w, 6, steps, "done in %s", time.Since(started).Round(time.Second))
	if o.check {
		if err := check(ctx, o, config, kubeconfig); err != nil {
			return fmt.Errorf("check: %w", err)
		}
		fmt.Fprintln(w, "demo check passed: ordered waves, only decode rolled on the second commit, every prediction equal to the controller's")
	}
	if !o.teardown {
		printNextSteps(w, o, kubeconfig, config)
	}
	return nil
}

// devOverlayWithDecodeImage returns the dev overlay's kustomization with
// a new engine image for decode alone.
func devOverlayWithDecodeImage(o options) string {
	data, _ := os.ReadFile(filepath.Join(o.examples, "overlays/dev/kustomization.yaml"))
	return string(data) + `- target: {kind: Deployment, name: decode}
  patch: |-
    - op: replace
      path: /spec/template/spec/containers/0/image
      value: registry.example/llm/engine:1.4.1
`
}

// startCluster reuses the control plane in o.dir or starts one. It
// returns the kubeconfig and a function that stops what it started.
func startCluster(ctx context.Context, o options, w *os.File) (string, func(), error) {
	statePath := filepath.Join(o.dir, "state.json")
	if s, ok := testcluster.ReadState(statePath); ok {
		fmt.Fprintf(w, "reusing the running control plane (%s)\n", s.Host)
		return s.Kubeconfig, func() { _ = testcluster.StopState(statePath) }, nil
	}
	_ = testcluster.StopState(statePath)
	opts := testcluster.DefaultOptions()
	opts.Dir, opts.Detached = o.dir, !o.teardown
	c, err := testcluster.Start(ctx, opts)
	if err != nil {
		return "", nil, err
	}
	if err := c.WriteState(statePath); err != nil {
		c.Stop()
		return "", nil, err
	}
	fmt.Fprintf(w, "control plane ready in %s at %s\n", c.StartDuration.Round(time.Millisecond), c.Config.Host)
	return c.Kubeconfig, func() { c.Stop(); _ = os.Remove(statePath) }, nil
}

// startGit serves o.dir/git over HTTP in a child process of its own (it
// outlives the demo and stops with make cluster-down) and creates a fresh
// llm-serving repository.
func startGit(o options, w *os.File) (*testgit.Repo, func(), error) {
	root := filepath.Join(o.dir, "git")
	urlFile := filepath.Join(root, "url")
	_ = os.RemoveAll(root)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	logPath := filepath.Join(o.dir, "git-server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(self, "serve-git", root, urlFile)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if o.teardown {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	stop := func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); _, _ = cmd.Process.Wait() }
	_ = testcluster.AddToState(filepath.Join(o.dir, "state.json"), "git-server", cmd.Process.Pid, logPath)
	var url []byte
	for deadline := time.Now().Add(10 * time.Second); len(url) == 0; {
		if url, _ = os.ReadFile(urlFile); len(url) == 0 && time.Now().After(deadline) {
			stop()
			return nil, nil, fmt.Errorf("the git server did not start; see %s", logPath)
		}
		time.Sleep(50 * time.Millisecond)
	}
	repo, err := testgit.Attach(root, string(bytes.TrimSpace(url))).NewRepo("llm-serving")
	if err != nil {
		stop()
		return nil, nil, err
	}
	return repo, stop, nil
}

// serveGit is the git server process: serve-git ROOT URL-FILE.
func serveGit(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: demo serve-git ROOT URL-FILE")
		return 2
	}
	s, err := testgit.Start(args[0], testgit.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.WriteFile(args[1], []byte(s.URL), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	select {}
}

// writeAgentConfig writes the demo's agent config.
func writeAgentConfig(o options, url, kubeconfig string) (string, error) {
	dir := filepath.Join(o.dir, "demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "agent.yaml")
	cfg := fmt.Sprintf(`apiVersion: roleout.dev/v1alpha1
kind: AgentConfig
source: {url: %s, branch: main}
cacheDir: %s
kubeconfig: %s
apps:
- name: llm-serving
  path: overlays/dev
  prune: true
  timeout: 2m
`, url, filepath.Join(dir, "cache"), kubeconfig)
	return path, os.WriteFile(path, []byte(cfg), 0o644)
}

func printNextSteps(w *os.File, o options, kubeconfig, config string) {
	fmt.Fprintf(w, `
The cluster and the git server keep running. Look around:

  export KUBECONFIG=%s
  kubectl get deployments,replicasets,pods -n llm-dev -L roleout.dev/role   # any kubectl; make cluster-bins builds bin/kubectl
  kubectl get controllerrevisions -A
  bin/roleout history --config %s --app llm-serving
  bin/roleout diff    --config %s --app llm-serving
  bin/roleout run     --config %s          # keep polling; commit to %s/git/llm-serving.git

Stop everything with: make cluster-down
`, kubeconfig, rel(config), rel(config), rel(config), rel(o.dir))
}

// rel shows p relative to the working directory when it is below it.
func rel(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}
