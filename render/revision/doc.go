// Package revision computes, offline and without a cluster, the identities
// a change produces: each role's template hash and ControllerRevision
// (history with KEP-238 semantics: unchanged, rollback or new revision),
// and each workload's predicted controller identity (Deployment
// pod-template-hash, StatefulSet and DaemonSet controller-revision-hash,
// LeaderWorkerSet and StormService template hashes).
//
// It is pure: no I/O, no logging. It must not import agent, sources, apply
// or render (render imports it, not the other way round).
package revision
