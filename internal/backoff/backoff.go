// Package backoff is the wait roleout takes after failures in a row: the
// agent's polls, commits and heals, and the posts to the forge and to
// notifications (internal/outbox). Writers racing for the status branch
// wait otherwise (sources: short, with jitter, so that two writers that
// collided do not collide again).
package backoff

import "time"

// Doubling is a doubling wait: Base after the first failure in a row,
// twice as long after each next one, never more than Max.
type Doubling struct {
	Base, Max time.Duration
}

// After returns the wait after n failures in a row (1, 2, …); none
// after 0.
func (b Doubling) After(n int) time.Duration {
	if n < 1 {
		return 0
	}
	d := b.Base
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}
