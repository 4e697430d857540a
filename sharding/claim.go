package sharding

import (
	"sync"
	"time"
)

// sessionClaim is a session's claim on the apps it holds: it ends a lease
// duration, less a retry period, after the last renewal of the member
// Lease was sent (the fence), read on the monotonic clock. Renewals move
// it while the session lasts; a session that ends drops its claim
// (endLocked), so nothing moves it after.
type sessionClaim struct {
	mu   sync.Mutex
	ttl  time.Duration
	last time.Time // the last renewal sent; zero until the first
}

// renewed moves the claim to a renewal sent at start.
func (c *sessionClaim) renewed(start time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if start.After(c.last) {
		c.last = start
	}
}

// deadline returns when the claim ends.
func (c *sessionClaim) deadline() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last.Add(c.ttl)
}

// appClaim is a session's claim on one app, as a fence.Claim.
type appClaim struct {
	s      *sessionClaim
	holder string
}

func (c appClaim) Deadline() time.Time { return c.s.deadline() }
func (c appClaim) Holder() string      { return c.holder }
