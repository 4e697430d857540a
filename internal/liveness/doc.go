// Package liveness is what an agent's /healthz reports of its loop
// (docs/design.md, "Liveness: the poll watchdog and /healthz"), and the
// watchdog that stops a poll that makes no progress.
//
// It imports nothing of roleout.
package liveness
