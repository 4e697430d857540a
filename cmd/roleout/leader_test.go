package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestLeaderElectionProcesses runs two `roleout run --leader-elect`
// processes against the test cluster: only the leader writes (the API
// server's audit log names the replica in the user agent); when the
// leader is SIGKILLed, without a chance to release the Lease, the standby
// takes over once the lease expires and rolls out the next commit. Both
// replicas are ready (/readyz) while one leads, so a rolling update of
// the agent's Deployment does not wait for the standby to poll.
func TestLeaderElectionProcesses(t *testing.T) {
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	const ns, lease = "leader", "roleout-leader-test"
	_, repo, config := faultSetup(t, ns)
	// Each replica serves its endpoints on an address of its own.
	addrA, addrB := freeAddress(t), freeAddress(t)
	for addrB == addrA {
		addrB = freeAddress(t)
	}
	args := func(addr string) []string {
		return []string{"run", "--config", withHTTPAddress(t, config, addr), "--leader-elect", "--leader-elect-namespace", "default",
			"--leader-elect-name", lease, "--leader-elect-lease-duration", "4s"}
	}
	var outA, outB syncBuffer
	a := startRoleout(t, &outA, args(addrA)...)
	defer func() { _ = a.Process.Kill(); _ = a.Wait() }()
	head, _ := repo.Rev("refs/heads/main")
	if !waitForStatus(t, repo, ns, time.Minute, succeededAt(head)) {
		t.Fatalf("the first replica did not roll out:\n%s", outA.String())
	}
	b := startRoleout(t, &outB, args(addrB)...)
	defer func() { _ = b.Process.Signal(syscall.SIGTERM); _ = b.Wait() }()
	host, _ := os.Hostname()
	idA, idB := fmt.Sprintf("%s-%d", host, a.Process.Pid), fmt.Sprintf("%s-%d", host, b.Process.Pid)
	holder := func() string {
		l, err := cs.CoordinationV1().Leases("default").Get(context.Background(), lease, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	if h := holder(); h != idA {
		t.Fatalf("Lease holder %q, want the first replica %q", h, idA)
	}
	if !waitForReadyz(addrB, "ok: standing by, not leading\n", 20*time.Second) {
		t.Errorf("the standby is not ready: /readyz = %s\n%s", readyzOf(addrB), outB.String())
	}
	if got := readyzOf(addrA); got != "200 ok: leading\n" {
		t.Errorf("the leader: /readyz = %s, want 200 leading", got)
	}

	rollout := func(tag string, out *syncBuffer) time.Time {
		t.Helper()
		started := time.Now()
		head, err := repo.Commit("main", tag, threeWaves(ns, tag))
		if err != nil {
			t.Fatal(err)
		}
		if !waitForStatus(t, repo, ns, 2*time.Minute, succeededAt(head)) {
			t.Fatalf("%s was not rolled out:\nreplica A:\n%s\nreplica B:\n%s", tag, outA.String(), outB.String())
		}
		return started
	}
	writers := func(since time.Time) map[string]int {
		writes, err := cluster.Writes("roleout/")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, w := range writes {
			if !w.Time.Before(since) && w.Namespace == ns && !w.DryRun && w.Resource != "events" {
				switch {
				case strings.HasSuffix(w.UserAgent, " "+idA):
					out["A"]++
				case strings.HasSuffix(w.UserAgent, " "+idB):
					out["B"]++
				default:
					out[w.UserAgent]++
				}
			}
		}
		return out
	}

	since := rollout("v2", &outA)
	if got := writers(since); got["A"] == 0 || len(got) != 1 {
		t.Errorf("writers of the v2 rollout = %v, want the leader A only", got)
	}
	killed := time.Now()
	_ = a.Process.Signal(syscall.SIGKILL)
	_ = a.Wait()
	since = rollout("v3", &outB)
	t.Logf("the standby rolled out v3 %s after the leader was killed (lease 4s)", time.Since(killed).Round(100*time.Millisecond))
	if h := holder(); h != idB {
		t.Errorf("Lease holder %q after the kill, want the standby %q", h, idB)
	}
	if got := readyzOf(addrB); got != "200 ok: leading\n" {
		t.Errorf("the new leader: /readyz = %s, want 200 leading", got)
	}
	if got := writers(since); got["B"] == 0 || len(got) != 1 {
		t.Errorf("writers of the v3 rollout = %v, want the new leader B only", got)
	}
	checkConverged(t, repo, ns, ns, "v3")
}

// withHTTPAddress writes a copy of the agent config at path that serves
// the agent's endpoints on addr, and returns the copy's path.
func withHTTPAddress(t *testing.T, path, addr string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "agent.yaml")
	data = []byte(strings.Replace(string(data), `http: {address: "-"}`, fmt.Sprintf("http: {address: %q}", addr), 1))
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// readyzOf returns the status code and body of GET /readyz at addr, or
// the error.
func readyzOf(addr string) string {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/readyz")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, body)
}

// waitForReadyz reports whether /readyz at addr answers 200 with body
// within d.
func waitForReadyz(addr, body string, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if readyzOf(addr) == "200 "+body {
			return true
		}
	}
	return false
}
