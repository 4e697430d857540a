package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/status"
)

func hours(h float64) metav1.Duration {
	return metav1.Duration{Duration: time.Duration(h * float64(time.Hour))}
}

func TestReconcileWaitsForWindow(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	h := newHarness(threeRoles("decode:1"), func(a *config.App) {
		a.Windows = []config.Window{{Kind: "allow", Cron: "0 2 * * *", Duration: hours(2), TimeZone: "UTC"}}
	})
	h.agent.deps.Clock = func() time.Time { return now }
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := h.appStatus(t)
	if st.Phase != status.PhaseWaiting || !strings.Contains(st.Message, "the next window opens at 2026-11-27T02:00:00Z") || len(h.applier.applied) != 0 {
		t.Fatalf("outside the window: phase %s, message %q, applied %v", st.Phase, st.Message, h.applier.applied)
	}
	commits := len(h.status.commits)
	if err := h.agent.RunOnce(context.Background()); err != nil || len(h.status.commits) != commits {
		t.Errorf("a second poll outside the window must record nothing new: %v, %d commits", err, len(h.status.commits)-commits)
	}
	now = time.Date(2026, 11, 27, 2, 30, 0, 0, time.UTC)
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := h.appStatus(t); st.Phase != status.PhaseSucceeded || len(h.applier.applied) != 4 {
		t.Errorf("inside the window: phase %s, applied %v", st.Phase, h.applier.applied)
	}
}

func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 10 * time.Second, 2: 20 * time.Second, 4: 80 * time.Second, 6: 5 * time.Minute, 20: 5 * time.Minute} {
		if got := DefaultBackoffs().Poll.After(n); got != want {
			t.Errorf("backoff(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestRunPollsOnTrigger(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	h.agent.cfg.Schedule = config.Schedule{Interval: metav1.Duration{Duration: time.Hour}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.agent.Run(ctx) }()
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	// The first rollout may itself trigger a poll (drift found at the
	// start heals through one), so the triggered poll is any after those.
	waitUntil("the first poll", func() bool { return h.fetcher.fetchCount() >= 1 })
	polls := h.fetcher.fetchCount()
	h.agent.Trigger()
	waitUntil("the triggered poll", func() bool { return h.fetcher.fetchCount() > polls })
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run returned %v", err)
	}
}
