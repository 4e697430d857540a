package main

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// TestConfigReload: roleout run picks up an edited configuration without
// a new commit or a restart. Unpausing an app on SIGHUP rolls it out; a
// change that needs a restart (the source URL) is refused and said so,
// and the agent goes on; a file change is seen without a signal.
func TestConfigReload(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	const ns = "reload"
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, ns)
	head, err := repo.Commit("main", "v1", threeWaves(ns, "v1"))
	if err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: "+ns+", path: apps/three, timeout: 30s, paused: true}\nschedule: {interval: 1h}\nhttp: {address: \"-\"}\n")
	out := &syncBuffer{}
	cmd := startRoleout(t, out, "run", "--config", config)
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	if !waitForStatus(t, repo, ns, time.Minute, func(st *status.App) bool { return st.Phase == status.PhasePaused }) {
		t.Fatalf("the paused app was not recorded Paused:\n%s", out.String())
	}
	edit := func(from, to string) {
		t.Helper()
		data, err := os.ReadFile(config)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(config, []byte(strings.Replace(string(data), from, to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	edit("url: \""+repo.URL()+"\"", "url: \""+repo.URL()+"x\"")
	_ = cmd.Process.Signal(syscall.SIGHUP)
	waitForLog(t, out, "configuration change of source needs a restart")
	edit("url: \""+repo.URL()+"x\"", "url: \""+repo.URL()+"\"")

	edit("paused: true", "paused: false")
	_ = cmd.Process.Signal(syscall.SIGHUP)
	if !waitForStatus(t, repo, ns, time.Minute, succeededAt(head)) {
		t.Fatalf("unpausing the app in the configuration did not roll it out:\n%s", out.String())
	}
	checkConverged(t, repo, ns, ns, "v1")
	if !strings.Contains(out.String(), "configuration reloaded") || !strings.Contains(out.String(), "changed=\"["+ns+"]\"") {
		t.Errorf("the log does not say which app the reload changed:\n%s", out.String())
	}

	// Without a signal: the file is checked every few seconds.
	edit("paused: false", "paused: true")
	if !waitForStatus(t, repo, ns, time.Minute, func(st *status.App) bool { return st.Phase == status.PhasePaused }) {
		t.Fatalf("a file change without SIGHUP was not picked up:\n%s", out.String())
	}
}
