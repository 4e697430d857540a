package agent

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/roleout/roleout/internal/liveness"
	"github.com/roleout/roleout/sources"
)

func TestHTTPEndpoints(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	secret := []byte("hook-s3cret")
	srv := httptest.NewServer(h.agent.Handler(secret))
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d", code)
	}
	if code, _ := get("/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before any poll = %d, want 503", code)
	}
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if code, _ := get("/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after a poll = %d", code)
	}
	code, body := get("/metrics")
	for _, want := range []string{`roleout_rollouts_total{app="llm",result="Succeeded"} 1`, `roleout_objects_applied_total{action="configured",app="llm"} 4`,
		"roleout_poll_duration_seconds_count 1", `roleout_last_applied_commit_timestamp_seconds{app="llm"}`, `roleout_reconcile_duration_seconds_count{app="llm"} 1`} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestHealthzReportsPollAge(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		running  bool
		lastPoll time.Duration // after start; 0: none yet
		at       time.Duration // after start
		wantCode int
		wantBody string
	}{
		{"loop not running (standing by)", false, 0, time.Hour, http.StatusOK, "ok"},
		{"first poll still within the bound", true, 0, 4 * time.Minute, http.StatusOK, "ok"},
		{"no first poll within the bound", true, 0, 6 * time.Minute, http.StatusServiceUnavailable,
			"no poll completed in 5m0s; the loop started at 2026-12-01T10:00:00Z"},
		{"recent poll", true, 10 * time.Minute, 14 * time.Minute, http.StatusOK, "ok"},
		{"poll too old", true, 10 * time.Minute, 16 * time.Minute, http.StatusServiceUnavailable,
			"no poll completed in 5m0s; last at 2026-12-01T10:10:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(threeRoles("decode:1"), nil)
			now := start
			h.agent.deps.Clock = func() time.Time { return now }
			if h.agent.live.Bound != 5*time.Minute {
				t.Fatalf("default bound of a 0 interval = %s, want 5m", h.agent.live.Bound)
			}
			if tc.running {
				h.agent.live.Begin(start)
			}
			if tc.lastPoll > 0 {
				h.agent.live.Polled(start.Add(tc.lastPoll))
			}
			now = start.Add(tc.at)
			w := httptest.NewRecorder()
			h.agent.Handler(nil).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
			if body := strings.TrimSpace(w.Body.String()); w.Code != tc.wantCode || body != tc.wantBody {
				t.Errorf("/healthz = %d %q, want %d %q", w.Code, body, tc.wantCode, tc.wantBody)
			}
		})
	}
}

// hangingFetcher never answers: it returns when its context ends. It
// records when its context was done and whether the loop counted as
// running, then calls onFetch when set.
type hangingFetcher struct {
	stopped time.Time // when its context was done
	running bool
	live    *liveness.Loop
	onFetch func()
}

func (f *hangingFetcher) Fetch(ctx context.Context) (sources.Snapshot, error) {
	f.running = f.live.Running()
	if f.onFetch != nil {
		f.onFetch()
	}
	<-ctx.Done()
	f.stopped = time.Now()
	return sources.Snapshot{}, ctx.Err()
}

func (f *hangingFetcher) IsAncestor(context.Context, sources.SourceRevision, sources.SourceRevision) (bool, error) {
	return true, nil
}

func (f *hangingFetcher) Head(ctx context.Context) (sources.SourceRevision, error) {
	<-ctx.Done()
	return sources.SourceRevision{}, ctx.Err()
}

// TestPollDeadline: a poll runs within the liveness bound; one that
// hangs is stopped at it and does not count as completed, one that
// finishes does.
func TestPollDeadline(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	h.agent.deps.Clock = func() time.Time { return now }
	h.agent.live.Bound = 50 * time.Millisecond // the hung fetch below waits this long
	hung := &hangingFetcher{live: h.agent.live}
	h.agent.deps.Fetcher = hung
	h.agent.live.Begin(now)
	before := time.Now()
	done := make(chan error, 1)
	go func() { done <- h.agent.poll(context.Background()) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "poll stopped after 50ms without progress (healthz.maxPollAge)") {
			t.Errorf("hung poll: err = %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a hung fetch held the poll for a minute: no deadline")
	}
	if hung.stopped.IsZero() || hung.stopped.Sub(before) > h.agent.live.Bound+10*time.Second {
		t.Errorf("the hung fetch was stopped at %v, want about %v after %v", hung.stopped, h.agent.live.Bound, before)
	}
	if !h.agent.live.Last().IsZero() {
		t.Error("a poll stopped at its deadline counted as completed")
	}

	h.agent.deps.Fetcher = h.fetcher
	h.agent.live.Bound = time.Hour
	now = now.Add(time.Minute)
	if err := h.agent.poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !h.agent.live.Last().Equal(now) {
		t.Errorf("last completed poll = %v, want %v", h.agent.live.Last(), now)
	}
}

// TestRunMarksTheLoopRunning: /healthz judges the loop only while Run
// runs it, and each of Run's polls can be stopped.
func TestRunMarksTheLoopRunning(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	ctx, cancel := context.WithCancel(context.Background())
	hung := &hangingFetcher{live: h.agent.live, onFetch: cancel}
	h.agent.deps.Fetcher = hung
	if err := h.agent.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if !hung.running || hung.stopped.IsZero() {
		t.Errorf("during a poll: running %v, stopped at %v; want running, then stopped", hung.running, hung.stopped)
	}
	if h.agent.live.Running() {
		t.Error("the loop still counts as running after Run returned")
	}
}
