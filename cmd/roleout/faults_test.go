package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// faultSetup serves the three-wave app in namespace ns and writes an
// agent config for it (prune on, a short wave timeout, a 1s interval).
func faultSetup(t *testing.T, name string) (*testgit.Server, *testgit.Repo, string) {
	t.Helper()
	testcluster.Require(t, cluster)
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, name)
	if _, err := repo.Commit("main", "v1", threeWaves(name, "v1")); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: "+name+", path: apps/three, prune: true, timeout: 15s}\n")
	f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "schedule: {interval: 1s}\nhttp: {address: \"-\"}\n")
	f.Close()
	return srv, repo, config
}

// startRoleout starts the roleout binary with args; its output is kept
// for the test log.
func startRoleout(t *testing.T, out *syncBuffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(roleoutBinary(t), args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// converge runs roleout run --once until it succeeds (up to n times).
func converge(t *testing.T, config string, n int) {
	t.Helper()
	var logs syncBuffer
	for range n {
		logs.Reset()
		if err := startRoleout(t, &logs, "run", "--once", "--config", config).Wait(); err == nil {
			return
		}
	}
	t.Fatalf("roleout did not converge in %d runs; last:\n%s", n, logs.String())
}

// TestFaultSIGKILL kills the agent at 20 random moments of three-wave
// rollouts (new commits in between) and restarts it each time: the
// cluster converges to the newest commit, no revision number repeats, no
// record is there twice, nothing is pruned by mistake.
func TestFaultSIGKILL(t *testing.T) {
	_, repo, config := faultSetup(t, "faults-kill")
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	tag := "v1"
	for i := range 20 {
		if i%5 == 4 {
			tag = fmt.Sprintf("v%d", i+2)
			if _, err := repo.Commit("main", tag, threeWaves("faults-kill", tag)); err != nil {
				t.Fatal(err)
			}
		}
		var out syncBuffer
		cmd := startRoleout(t, &out, "run", "--once", "--config", config)
		time.Sleep(time.Duration(r.IntN(2500)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
	converge(t, config, 3)
	checkConverged(t, repo, "faults-kill", "faults-kill", tag)
}

// TestFaultAPIServerAndEtcd stops kube-apiserver in the middle of a
// rollout and restarts it, then restarts etcd under a second rollout.
func TestFaultAPIServerAndEtcd(t *testing.T) {
	_, repo, config := faultSetup(t, "faults-api")
	c := cluster
	var out syncBuffer
	cmd := startRoleout(t, &out, "run", "--once", "--config", config)
	if !waitForStatus(t, repo, "faults-api", time.Minute, func(st *agent.AppStatus) bool { return st.Phase == agent.PhaseProgressing }) {
		_ = cmd.Process.Kill()
		t.Fatalf("no checkpoint after wave 1:\n%s", out.String())
	}
	if err := c.StopComponent("kube-apiserver"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	if err := c.StartComponent("kube-apiserver"); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // it finishes or fails; either way the next run converges
	converge(t, config, 3)
	checkConverged(t, repo, "faults-api", "faults-api", "v1")

	if _, err := repo.Commit("main", "v2", threeWaves("faults-api", "v2")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	cmd = startRoleout(t, &out, "run", "--once", "--config", config)
	time.Sleep(500 * time.Millisecond)
	if err := c.StopComponent("etcd"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if err := c.StartComponent("etcd"); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	converge(t, config, 5)
	checkConverged(t, repo, "faults-api", "faults-api", "v2")
}

// TestFaultGitServerDown keeps the agent running while the git server is
// down for several polls; a commit made meanwhile is rolled out once it
// is back.
func TestFaultGitServerDown(t *testing.T) {
	srv, repo, config := faultSetup(t, "faults-git")
	var out syncBuffer
	cmd := startRoleout(t, &out, "run", "--config", config)
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	if !waitForStatus(t, repo, "faults-git", time.Minute, func(st *agent.AppStatus) bool { return st.Phase == agent.PhaseSucceeded }) {
		t.Fatalf("first rollout did not finish:\n%s", out.String())
	}
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	head, err := repo.Commit("main", "v2", threeWaves("faults-git", "v2"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second) // several failed polls
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	if !waitForStatus(t, repo, "faults-git", 90*time.Second, succeededAt(head)) {
		t.Fatalf("the agent did not catch up after the git server came back:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "reconcile failed") {
		t.Errorf("no failed poll was logged while the git server was down")
	}
	checkConverged(t, repo, "faults-git", "faults-git", "v2")
}

// TestFaultSlowNetwork puts a proxy between the agent and the git server
// that adds latency and drops every third connection.
func TestFaultSlowNetwork(t *testing.T) {
	srv, repo, config := faultSetup(t, "faults-net")
	proxy := startFlakyProxy(t, strings.TrimPrefix(srv.URL, "http://"), 150*time.Millisecond, 3)
	data, _ := os.ReadFile(config)
	data = []byte(strings.Replace(string(data), strings.TrimPrefix(srv.URL, "http://"), proxy, 1))
	if err := os.WriteFile(config, data, 0o644); err != nil {
		t.Fatal(err)
	}
	converge(t, config, 8)
	checkConverged(t, repo, "faults-net", "faults-net", "v1")
}

// syncBuffer is a buffer a process writes to while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// startFlakyProxy forwards TCP to target with delay on every chunk, and
// closes every nth connection at once.
func startFlakyProxy(t *testing.T, target string, delay time.Duration, nth int) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var mu sync.Mutex
	count := 0
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			count++
			drop := count%nth == 0
			mu.Unlock()
			if drop {
				c.Close()
				continue
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				go slowCopy(up, c, delay)
				slowCopy(c, up, delay)
			}()
		}
	}()
	return l.Addr().String()
}

func slowCopy(dst io.Writer, src io.Reader, delay time.Duration) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			time.Sleep(delay)
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
