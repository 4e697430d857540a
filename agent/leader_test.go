package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/testcluster"
)

var cluster *testcluster.Cluster

func TestMain(m *testing.M) {
	os.Exit(testcluster.Main(m, testcluster.DefaultOptions(), &cluster))
}

// TestLeaderElection runs two replicas against the test cluster's Lease
// API: only the leader polls, yet both are ready (/readyz), the standby
// as standing by; when the leader stops, the other takes over within the
// lease time.
func TestLeaderElection(t *testing.T) {
	c := testcluster.Require(t, cluster)
	le := config.LeaderElection{Namespace: "default", Name: "roleout-test", LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 200 * time.Millisecond}
	replica := func(id string) (*harness, context.CancelFunc) {
		h := newHarness(threeRoles("decode:1"), nil)
		h.agent.cfg.Schedule = config.Schedule{Interval: metav1.Duration{Duration: 100 * time.Millisecond}}
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
	readyz := func(h *harness) (int, string) {
		w := httptest.NewRecorder()
		h.agent.Handler(nil).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return w.Code, w.Body.String()
	}
	waitFor("replica a to lead", 10*time.Second, func() bool { return a.fetcher.fetchCount() > 0 })
	b, cancelB := replica("b")
	defer cancelB()
	time.Sleep(2 * time.Second)
	if n := b.fetcher.fetchCount(); n != 0 {
		t.Fatalf("replica b polled %d times while a led", n)
	}
	if code, body := readyz(a); code != http.StatusOK || body != "ok: leading\n" {
		t.Errorf("leader a: /readyz = %d %q, want 200 leading", code, body)
	}
	if code, body := readyz(b); code != http.StatusOK || body != "ok: standing by, not leading\n" {
		t.Errorf("standby b: /readyz = %d %q, want 200 standing by", code, body)
	}
	stoppedAt := time.Now()
	cancelA()
	waitFor("replica b to take over", 10*time.Second, func() bool { return b.fetcher.fetchCount() > 0 })
	waitFor("replica b to be ready as the leader", 10*time.Second, func() bool {
		code, body := readyz(b)
		return code == http.StatusOK && body == "ok: leading\n"
	})
	t.Logf("hand-over took %s (lease %s)", time.Since(stoppedAt).Round(time.Millisecond), le.LeaseDuration)
}
