package agent

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// liveness is what /healthz reports (docs/design.md, "Liveness: the poll
// watchdog and /healthz"): while the loop runs, it is alive when it has
// completed a poll within bound, or, before its first poll completes,
// when it started less than bound ago. A replica whose loop is not running
// (standing by for the leader lease, or never started) is alive.
type liveness struct {
	bound time.Duration

	mu      sync.Mutex
	running bool
	started time.Time // when the loop started
	last    time.Time // when it last completed a poll; zero before the first
	// progressAt is when the running poll last made progress, on the
	// real clock.
	progressAt time.Time
}

// begin records that the loop started at now.
func (l *liveness) begin(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running, l.started, l.last = true, now, time.Time{}
}

// end records that the loop stopped.
func (l *liveness) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running = false
}

// polled records a poll completed at now.
func (l *liveness) polled(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = now
	l.progressAt = time.Now()
}

// progressed records that a running poll moved on (a wave became
// healthy, an app was reconciled): the poll's watchdog starts counting
// again, so a long rollout whose waves keep completing is never cut off.
func (l *liveness) progressed() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.progressAt = time.Now()
}

// watch cancels a poll that makes no progress for bound, with a cause
// that says so, until the returned stop is called. It reads the real
// clock: it bounds real waiting.
func (l *liveness) watch(cancel context.CancelCauseFunc) (stop func()) {
	l.progressed()
	done := make(chan struct{})
	go func() {
		t := time.NewTimer(l.bound)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				l.mu.Lock()
				idle := time.Since(l.progressAt)
				l.mu.Unlock()
				if idle >= l.bound {
					cancel(&errPollStalled{bound: l.bound})
					return
				}
				t.Reset(l.bound - idle)
			}
		}
	}()
	return func() { close(done) }
}

// errPollStalled is the cause of a poll the watchdog stopped.
type errPollStalled struct{ bound time.Duration }

func (e *errPollStalled) Error() string {
	return fmt.Sprintf("poll stopped after %s without progress (healthz.maxPollAge): a fetch, render or status push hung; raise it if a step legitimately takes longer", e.bound)
}

// check returns nil when the loop is alive at now, else the reason, on
// one line.
func (l *liveness) check(now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case !l.running:
		return nil
	case l.last.IsZero():
		if now.Sub(l.started) <= l.bound {
			return nil
		}
		return fmt.Errorf("no poll completed in %s; the loop started at %s", l.bound, l.started.UTC().Format(time.RFC3339))
	case now.Sub(l.last) > l.bound:
		return fmt.Errorf("no poll completed in %s; last at %s", l.bound, l.last.UTC().Format(time.RFC3339))
	}
	return nil
}
