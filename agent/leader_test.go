package agent

import (
	"context"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/internal/testcluster"
)

var cluster *testcluster.Cluster

func TestMain(m *testing.M) {
	os.Exit(testcluster.Main(m, testcluster.DefaultOptions(), &cluster))
}

// TestLeaderElection runs two replicas against the test cluster's Lease
// API: only the leader polls; when it stops, the other takes over within
// the lease time.
func TestLeaderElection(t *testing.T) {
	c := testcluster.Require(t, cluster)
	le := LeaderElection{Namespace: "default", Name: "roleout-test", LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 200 * time.Millisecond}
	replica := func(id string) (*harness, context.CancelFunc) {
		h := newHarness(threeRoles("decode:1"), nil)
		h.agent.cfg.Schedule = ScheduleConfig{Interval: metav1.Duration{Duration: 100 * time.Millisecond}}
		ctx, cancel := context.WithCancel(context.Background())
		l := le
		l.Identity = id
		go func() { _ = h.agent.RunAsLeader(ctx, c.Config, l) }()
		return h, cancel
	}
	a, cancelA := replica("a")
	defer cancelA()
	waitFor := func(what string, d time.Duration, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(d); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("replica a to lead", 10*time.Second, func() bool { return a.fetcher.fetchCount() > 0 })
	b, cancelB := replica("b")
	defer cancelB()
	time.Sleep(2 * time.Second)
	if n := b.fetcher.fetchCount(); n != 0 {
		t.Fatalf("replica b polled %d times while a led", n)
	}
	stoppedAt := time.Now()
	cancelA()
	waitFor("replica b to take over", 10*time.Second, func() bool { return b.fetcher.fetchCount() > 0 })
	t.Logf("hand-over took %s (lease %s)", time.Since(stoppedAt).Round(time.Millisecond), le.LeaseDuration)
}
