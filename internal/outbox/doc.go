// Package outbox posts on its own time what the agent tells the world
// (a forge's statuses and comments, notifications), so that nothing it
// posts blocks or fails a rollout. Posts queue under a key; the newest
// of a key replaces an older one not yet done; a post that fails for a
// while (Temporary) is tried again with backoff, logged once; one that
// trying again cannot mend is logged and dropped.
//
// It imports nothing of roleout but internal/backoff.
package outbox
