package agent

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// TestReadyzStandbyAndLeader: readiness does not depend on leadership. A
// replica standing by in leader election, which never polls, is ready
// once it has read the Lease, and healthy however long it stands by; the
// leader is ready once it has polled.
func TestReadyzStandbyAndLeader(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	now := start
	h.agent.deps.Clock = func() time.Time { return now }
	handler := h.agent.Handler(nil)
	get := func(path string) (int, string) {
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w.Code, w.Body.String()
	}
	expect := func(step, path string, wantCode int, wantBody string) {
		t.Helper()
		if code, body := get(path); code != wantCode || body != wantBody {
			t.Errorf("%s: %s = %d %q, want %d %q", step, path, code, body, wantCode, wantBody)
		}
	}
	const standingBy = "ok: standing by, not leading\n"

	expect("no election, no poll", "/readyz", http.StatusServiceUnavailable, "no poll has completed yet\n")
	h.agent.elect.start()
	expect("election started, Lease not read", "/readyz", http.StatusServiceUnavailable,
		"standing by: the leader election Lease has not been read from the API server yet\n")
	h.agent.elect.reached()
	expect("standby", "/readyz", http.StatusOK, standingBy)
	now = start.Add(24 * time.Hour) // far beyond healthz.maxPollAge without a poll
	expect("standby for a day", "/healthz", http.StatusOK, "ok\n")
	expect("standby for a day", "/readyz", http.StatusOK, standingBy)

	ctx, lost := context.WithCancel(context.Background())
	if !h.agent.elect.lead(ctx) {
		t.Fatal("lead refused a live lease")
	}
	expect("leader before its first poll", "/readyz", http.StatusServiceUnavailable, "leading: no poll has completed yet\n")
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	expect("leader after a poll", "/readyz", http.StatusOK, "ok: leading\n")
	lost()
	if !h.agent.elect.standBy() {
		t.Error("standBy: the replica did not count as having led")
	}
	expect("standby again", "/readyz", http.StatusOK, standingBy)
	if h.agent.elect.lead(ctx) {
		t.Error("lead accepted a lease whose context had ended")
	}
	expect("a late leader callback", "/readyz", http.StatusOK, standingBy)
	h.agent.elect.stop()
	expect("election stopped", "/readyz", http.StatusOK, "ok\n")
}

// fakeLock is a Lease lock whose Get returns err.
type fakeLock struct {
	resourcelock.Interface
	err error
}

func (l fakeLock) Get(context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	if l.err != nil {
		return nil, nil, l.err
	}
	return &resourcelock.LeaderElectionRecord{HolderIdentity: "other"}, []byte("{}"), nil
}

// TestReadyzObservedLock: a read of the Lease that reached the API server
// (found, or not found yet) makes a standby ready; a failed one does not.
func TestReadyzObservedLock(t *testing.T) {
	leases := schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"read", nil, true},
		{"not found", apierrors.NewNotFound(leases, "roleout"), true},
		{"forbidden", apierrors.NewForbidden(leases, "roleout", errors.New("no RBAC")), false},
		{"unreachable", errors.New("dial tcp 127.0.0.1:6443: connection refused"), false},
	} {
		e := &election{}
		e.start()
		l := &observedLock{Interface: fakeLock{err: tc.err}, reached: e.reached}
		_, _, _ = l.Get(context.Background())
		if _, seen, _ := e.state(); seen != tc.want {
			t.Errorf("%s: Lease seen = %v, want %v", tc.name, seen, tc.want)
		}
	}
}
