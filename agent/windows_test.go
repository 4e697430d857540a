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

func mustWindows(t *testing.T, cfg ...config.Window) windows {
	t.Helper()
	ws, err := parseWindows(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func hours(h float64) metav1.Duration {
	return metav1.Duration{Duration: time.Duration(h * float64(time.Hour))}
}

func TestWindows(t *testing.T) {
	nightly := config.Window{Kind: "allow", Cron: "0 2 * * *", Duration: hours(2), TimeZone: "UTC"}
	friday := config.Window{Kind: "deny", Cron: "0 0 * * 5", Duration: hours(24), TimeZone: "UTC"}
	berlin := config.Window{Kind: "allow", Cron: "0 9 * * *", Duration: hours(1), TimeZone: "Europe/Berlin"}
	at := func(s string) time.Time {
		t.Helper()
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	cases := []struct {
		name     string
		windows  []config.Window
		now      string
		open     bool
		nextOpen string
	}{
		{"no windows: always open", nil, "2026-11-26T12:00:00Z", true, ""},
		{"inside the nightly window", []config.Window{nightly}, "2026-11-26T03:00:00Z", true, ""},
		{"at the window's start", []config.Window{nightly}, "2026-11-26T02:00:00Z", true, ""},
		{"at the window's end", []config.Window{nightly}, "2026-11-26T04:00:00Z", false, "2026-11-27T02:00:00Z"},
		{"outside: next opens at 02:00", []config.Window{nightly}, "2026-11-26T12:00:00Z", false, "2026-11-27T02:00:00Z"},
		{"deny wins over allow", []config.Window{nightly, friday}, "2026-11-27T03:00:00Z", false, "2026-11-28T02:00:00Z"},
		{"only deny: open outside it", []config.Window{friday}, "2026-11-26T12:00:00Z", true, ""},
		{"only deny: opens when it ends", []config.Window{friday}, "2026-11-27T12:00:00Z", false, "2026-11-28T00:00:00Z"},
		{"time zone", []config.Window{berlin}, "2026-11-26T08:30:00Z", true, ""},
		{"time zone, before", []config.Window{berlin}, "2026-11-26T07:30:00Z", false, "2026-11-26T08:00:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := mustWindows(t, tc.windows...)
			now := at(tc.now)
			if got := ws.openAt(now); got != tc.open {
				t.Fatalf("open at %s = %v, want %v", tc.now, got, tc.open)
			}
			if tc.open {
				return
			}
			if got := ws.nextOpen(now); !got.Equal(at(tc.nextOpen)) {
				t.Errorf("next open after %s = %s, want %s", tc.now, got.UTC().Format(time.RFC3339), tc.nextOpen)
			}
		})
	}
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
	waitUntil("the first poll", func() bool { return h.fetcher.fetchCount() == 1 })
	h.agent.Trigger()
	waitUntil("the triggered poll", func() bool { return h.fetcher.fetchCount() == 2 })
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run returned %v", err)
	}
}
