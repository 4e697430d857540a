package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestReadyzWithoutElection: an agent outside leader election is ready
// once it has polled, and healthy meanwhile; in leader election,
// sharding.Election answers (TestElectionReadiness there, and
// TestLeaderElection here against a real Lease API).
func TestReadyzWithoutElection(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	h.agent.deps.Clock = func() time.Time { return start }
	handler := h.agent.Handler(nil)
	expect := func(step, path string, wantCode int, wantBody string) {
		t.Helper()
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != wantCode || w.Body.String() != wantBody {
			t.Errorf("%s: %s = %d %q, want %d %q", step, path, w.Code, w.Body.String(), wantCode, wantBody)
		}
	}
	expect("no poll", "/readyz", http.StatusServiceUnavailable, "no poll has completed yet\n")
	expect("no poll, loop not running", "/healthz", http.StatusOK, "ok\n")
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	expect("after a poll", "/readyz", http.StatusOK, "ok\n")
}
