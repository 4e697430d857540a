// Package statusstore is roleout's status branch as a store: one local
// copy per agent in cacheDir (local.go), brought up to date by fetching
// only what moved (a ref listing when nothing did), read without a work
// tree and within limits (tree.go, pack.go), and written by commits that
// send only their new objects; a push another writer beat is replayed on
// the new head (branch.go). Calls that overlap share a commit (group.go).
// With a status signing key, reads trust only the commits that key signed
// and the anchor the agent keeps in the cluster (verify.go); every write
// checks the claims its context holds (internal/fence) before it leaves.
//
// Every reader goes through it: the agent's loop (status.Load), the
// forge's previews (previews.go), the web view and the CLI. The files it
// holds are package status's format; statusstore knows their paths only
// to keep previews apart. docs/design.md, "The status branch", has the
// numbers.
package statusstore
