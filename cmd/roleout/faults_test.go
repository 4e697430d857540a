//go:build faults

package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/status"
)

// TestFaultSIGKILL kills the agent at 20 random moments of three-wave
// rollouts and restarts it each time. Every round commits a new tag, so
// every run has a rollout to do (each wave waits a few seconds for its
// Deployment); after every kill the invariants hold (no revision number
// repeats, no record twice, nothing deleted), and at the end the cluster
// converges to the newest commit.
func TestFaultSIGKILL(t *testing.T) {
	const ns = "faults-kill"
	_, repo, config := faultSetup(t, ns)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	tag := "v1"
	midRollout := 0
	for i := range 20 {
		tag = fmt.Sprintf("v%d", i+1)
		if _, err := repo.Commit("main", tag, slowWaves(ns, tag)); err != nil {
			t.Fatal(err)
		}
		before := len(appWritesList(t, ns))
		var out syncBuffer
		cmd := startRoleout(t, &out, "run", "--once", "--config", config)
		// A run starts (about 0.6 s for the binary's package
		// initialisation on a loaded machine, since it links the SOPS
		// module's key services), reads discovery and probes render
		// isolation before its first write: kills from 1.5 s on land
		// inside rollouts, not before them, on a loaded machine too; a
		// rollout's three waves take about ten seconds.
		time.Sleep(time.Duration(1500+r.IntN(6500)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if ok && ws.Signaled() && len(appWritesList(t, ns)) > before {
			midRollout++
		}
		checkInvariants(t, repo, ns, ns)
	}
	t.Logf("%d of 20 kills landed after the run had written to the cluster and before it ended", midRollout)
	if midRollout < 10 {
		t.Errorf("only %d of 20 kills landed inside a rollout; the test did not do what it says", midRollout)
	}
	converge(t, config, 3)
	checkConverged(t, repo, ns, ns, tag)
}

// TestFaultAPIServerAndEtcd stops kube-apiserver in the middle of a
// rollout and restarts it, then restarts etcd under a second rollout.
func TestFaultAPIServerAndEtcd(t *testing.T) {
	_, repo, config := faultSetup(t, "faults-api")
	c := cluster
	var out syncBuffer
	cmd := startRoleout(t, &out, "run", "--once", "--config", config)
	if !waitForStatus(t, repo, "faults-api", time.Minute, func(st *status.App) bool { return st.Phase == status.PhaseProgressing }) {
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
	// Mid-rollout: wave 1 has started writing v2.
	if !waitForRoleObject(t, "faults-api", "a", "v2", time.Minute) {
		_ = cmd.Process.Kill()
		t.Fatalf("the v2 rollout did not start:\n%s", out.String())
	}
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

// waitForRoleObject waits until role's ConfigMap in ns holds tag (roleout
// wrote it), or d passes.
func waitForRoleObject(t *testing.T, ns, role, tag string, d time.Duration) bool {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(context.Background(), role+"-config", metav1.GetOptions{})
		if err == nil && cm.Data["tag"] == tag {
			return true
		}
	}
	return false
}

// TestFaultGitServerDown keeps the agent running while the git server is
// down for several polls; a commit made meanwhile is rolled out once it
// is back.
func TestFaultGitServerDown(t *testing.T) {
	srv, repo, config := faultSetup(t, "faults-git")
	var out syncBuffer
	cmd := startRoleout(t, &out, "run", "--config", config)
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	if !waitForStatus(t, repo, "faults-git", time.Minute, func(st *status.App) bool { return st.Phase == status.PhaseSucceeded }) {
		t.Fatalf("first rollout did not finish:\n%s", out.String())
	}
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	head, err := repo.Commit("main", "v2", threeWaves("faults-git", "v2"))
	if err != nil {
		t.Fatal(err)
	}
	// Down for several polls: three failed ones (the agent backs off
	// 10s, then 20s between them).
	for deadline := time.Now().Add(2 * time.Minute); strings.Count(out.String(), "reconcile failed") < 3; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than three failed polls while the git server was down:\n%s", out.String())
		}
	}
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	if !waitForStatus(t, repo, "faults-git", 90*time.Second, succeededAt(head)) {
		t.Fatalf("the agent did not catch up after the git server came back:\n%s", out.String())
	}
	checkConverged(t, repo, "faults-git", "faults-git", "v2")
}

// TestFaultSlowNetwork puts proxies that add latency and drop
// connections between the agent and both the git server and the API
// server.
func TestFaultSlowNetwork(t *testing.T) {
	srv, repo, config := faultSetup(t, "faults-net")
	gitHost := strings.TrimPrefix(srv.URL, "http://")
	gitProxy := startFlakyProxy(t, gitHost, 150*time.Millisecond, 3)
	apiHost := strings.TrimPrefix(cluster.Config.Host, "https://")
	apiProxy := startFlakyProxy(t, apiHost, 20*time.Millisecond, 5)
	kubeconfig, err := os.ReadFile(cluster.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	slowKubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(slowKubeconfig, []byte(strings.ReplaceAll(string(kubeconfig), apiHost, apiProxy)), 0o600); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(config)
	data = []byte(strings.NewReplacer(gitHost, gitProxy, cluster.Kubeconfig, slowKubeconfig).Replace(string(data)))
	if err := os.WriteFile(config, data, 0o644); err != nil {
		t.Fatal(err)
	}
	converge(t, config, 8)
	checkConverged(t, repo, "faults-net", "faults-net", "v1")
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

// TestFaultResumeAfterKill SIGKILLs the agent at chosen points of a three-wave
// rollout — after the first object of wave 1, between waves (right after
// the wave-1 checkpoint), after the first object of wave 2 — and restarts
// it: the rollout finishes at the commit, no object is written twice for
// the same revision (counted in the API server's audit log), and the
// history has each record once.
func TestFaultResumeAfterKill(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		killAt func(t *testing.T, ns string) bool
	}{
		{"after the first object of wave 1", func(t *testing.T, ns string) bool {
			return waitForRoleWrite(t, cs, ns, "a", time.Minute)
		}},
		{"between waves, after the wave-1 checkpoint", nil},
		{"after the first object of wave 2", func(t *testing.T, ns string) bool {
			return waitForRoleWrite(t, cs, ns, "b", time.Minute)
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("resume-%d", i+1)
			_, repo, config := faultSetup(t, name)
			if _, err := repo.Commit("main", "slow waves", slowWaves(name, "v1")); err != nil {
				t.Fatal(err)
			}
			var out syncBuffer
			cmd := startRoleout(t, &out, "run", "--once", "--config", config)
			killAt := tc.killAt
			if killAt == nil {
				killAt = func(t *testing.T, ns string) bool {
					return waitForStatus(t, repo, ns, time.Minute, func(st *status.App) bool { return st.Phase == status.PhaseProgressing })
				}
			}
			reached := killAt(t, name)
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			if !reached {
				t.Fatalf("the kill point was never reached:\n%s", out.String())
			}
			converge(t, config, 3)
			checkConverged(t, repo, name, name, "v1")
			want := []string{"namespaces/" + name}
			for _, role := range []string{"a", "b", "c"} {
				want = append(want, "configmaps/"+role+"-config", "deployments/"+role)
			}
			checkWrittenOnce(t, name, want)
			rep, err := historyOf(t, repo, name)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Rollouts) != 1 || rep.Rollouts[0].Result != status.PhaseSucceeded {
				t.Errorf("history = %+v, want one Succeeded record", rep.Rollouts)
			}
		})
	}
}

// TestNewCommitDuringWave1 pushes a new commit while wave 1 of a
// three-wave rollout runs: wave 1 finishes, then the agent plans again
// from the new commit; the later waves go straight to it, in order, and
