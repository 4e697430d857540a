package liveness

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Loop is what /healthz reports of a loop: while it runs, it is alive when it has
// completed a poll within bound, or, before its first poll completes,
// when it started less than bound ago. A replica whose loop is not running
// (standing by for the leader lease, or never started) is alive.
type Loop struct {
	// Bound is how long the loop may go without completing a poll.
	Bound time.Duration

	mu      sync.Mutex
	running bool
	started time.Time // when the loop started
	last    time.Time // when it last completed a poll; zero before the first
	// progressAt is when the running poll last made progress, on the
	// real clock.
	progressAt time.Time
}

// Begin records that the loop started at now.
func (l *Loop) Begin(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running, l.started, l.last = true, now, time.Time{}
}

// End records that the loop stopped.
func (l *Loop) End() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running = false
}

// Polled records a poll completed at now.
func (l *Loop) Polled(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = now
	l.progressAt = time.Now()
}

// Progressed records that a running poll moved on (a wave became
// healthy, an app was reconciled): the poll's watchdog starts counting
// again, so a long rollout whose waves keep completing is never cut off.
func (l *Loop) Progressed() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.progressAt = time.Now()
}

// Watch cancels a poll that makes no progress for bound, with a cause
// that says so, until the returned stop is called. It reads the real
// clock: it bounds real waiting.
func (l *Loop) Watch(cancel context.CancelCauseFunc) (stop func()) {
	l.Progressed()
	done := make(chan struct{})
	go func() {
		t := time.NewTimer(l.Bound)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				l.mu.Lock()
				idle := time.Since(l.progressAt)
				l.mu.Unlock()
				if idle >= l.Bound {
					cancel(&errPollStalled{bound: l.Bound})
					return
				}
				t.Reset(l.Bound - idle)
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

// Check returns nil when the loop is alive at now, else the reason, on
// one line.
func (l *Loop) Check(now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case !l.running:
		return nil
	case l.last.IsZero():
		if now.Sub(l.started) <= l.Bound {
			return nil
		}
		return fmt.Errorf("no poll completed in %s; the loop started at %s", l.Bound, l.started.UTC().Format(time.RFC3339))
	case now.Sub(l.last) > l.Bound:
		return fmt.Errorf("no poll completed in %s; last at %s", l.Bound, l.last.UTC().Format(time.RFC3339))
	}
	return nil
}

// Last is when the loop last completed a poll; zero before the first.
func (l *Loop) Last() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// Running reports whether the loop runs (between Begin and End).
func (l *Loop) Running() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running
}
