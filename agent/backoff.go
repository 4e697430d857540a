package agent

import (
	"time"

	"github.com/roleout/roleout/drift"
	"github.com/roleout/roleout/internal/backoff"
)

// Backoffs are the agent's waits after failures. Tests shorten them
// (Deps.Backoffs) instead of sleeping through them.
type Backoffs struct {
	// Poll bounds the wait after failed polls in a row: the loop polls
	// again at the schedule's next time or after this, whichever is
	// sooner (10s, doubling, at most 5m).
	Poll backoff.Doubling
	// Commit is the wait after failed attempts at one commit before the
	// running agent tries it again (status.App.RetryAfter: 1m, doubling,
	// at most 30m), instead of waiting out the same wave's timeout at
	// every poll.
	Commit backoff.Doubling
	// Heal is the wait before healing an object again after heals in a
	// row that did not stick (10s, doubling, at most healQuiet): another
	// controller that keeps changing a field is fought at most this
	// often.
	Heal backoff.Doubling
}

// DefaultBackoffs returns the agent's backoffs.
func DefaultBackoffs() Backoffs {
	return Backoffs{
		Poll:   backoff.Doubling{Base: 10 * time.Second, Max: 5 * time.Minute},
		Commit: backoff.Doubling{Base: time.Minute, Max: 30 * time.Minute},
		Heal:   backoff.Doubling{Base: 10 * time.Second, Max: drift.HealQuiet},
	}
}
