// Package backoff is the wait roleout takes after failures in a row: the
// agent's polls, commits and heals, and the posts to the forge and to
// notifications (internal/outbox). Writers racing for the status branch
// wait otherwise (sources: short, with jitter, so that two writers that
// collided do not collide again).
package backoff
