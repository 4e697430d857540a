// Package revision computes, offline and without a cluster, a role's
// template hash and its revision history with KEP-238 semantics (Decide:
// unchanged, rollback or a new revision; plans call a role's first
// revision an install, Decision.PlanAction), stores a role revision as an
// apps/v1 ControllerRevision and reads it back, and records objects with
// Secret values masked (Record).
//
// It is pure: no I/O, no logging. Its hash is written here, not called
// from k8s.io/kubernetes (hash.go says why), so the status format's
// readers link no controller code through it. It must not import agent,
// sources, apply, model or render (render/plan imports it, not the other
// way round), nor the other render/ packages.
package revision
