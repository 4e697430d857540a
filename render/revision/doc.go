// Package revision computes, offline and without a cluster, the identities
// a change produces: each role's template hash and ControllerRevision
// (history with KEP-238 semantics: unchanged, rollback or new revision;
// plans call a role's first revision an install, Decision.PlanAction),
// and each workload's predicted controller identity (Deployment
// pod-template-hash, StatefulSet and DaemonSet controller-revision-hash,
// LeaderWorkerSet and StormService template hashes).
//
// A custom workload's schema comes from a CRD: the render's, else the
// cluster's, else the one roleout carries, copied from the module of the
// controller it links (BuiltinCRDs, crds/). PredictOutcome says which
// (Schema), and marks a prediction roleout cannot vouch for (no schema at
// all, or a template a webhook it does not model rewrites) with the
// reason (Outcome.Unverified).
//
// It is pure: no I/O, no logging (the built-in CRDs are embedded in the
// binary). It must not import agent, sources, apply or render (render
// imports it, not the other way round).
package revision
