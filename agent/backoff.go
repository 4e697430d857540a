package agent

import (
	"time"

	"github.com/roleout/roleout/drift"
)

// Backoff is a doubling wait: Base after the first failure in a row,
// twice as long after each next one, never more than Max.
type Backoff struct {
	Base, Max time.Duration
}

// After returns the wait after n failures in a row (1, 2, …); none
// after 0.
func (b Backoff) After(n int) time.Duration {
	if n < 1 {
		return 0
	}
	d := b.Base
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

// Backoffs are the agent's waits after failures. Tests shorten them
// (Deps.Backoffs) instead of sleeping through them.
type Backoffs struct {
	// Poll bounds the wait after failed polls in a row: the loop polls
	// again at the schedule's next time or after this, whichever is
	// sooner (10s, doubling, at most 5m).
	Poll Backoff
	// Commit is the wait after failed attempts at one commit before the
	// running agent tries it again (status.App.RetryAfter: 1m, doubling,
	// at most 30m), instead of waiting out the same wave's timeout at
	// every poll.
	Commit Backoff
	// Heal is the wait before healing an object again after heals in a
	// row that did not stick (10s, doubling, at most healQuiet): another
	// controller that keeps changing a field is fought at most this
	// often.
	Heal Backoff
}

// DefaultBackoffs returns the agent's backoffs.
func DefaultBackoffs() Backoffs {
	return Backoffs{
		Poll:   Backoff{Base: 10 * time.Second, Max: 5 * time.Minute},
		Commit: Backoff{Base: time.Minute, Max: 30 * time.Minute},
		Heal:   Backoff{Base: 10 * time.Second, Max: drift.HealQuiet},
	}
}
