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
// # Adding a workload kind
//
// A workload kind is an entry in two tables, and nowhere else:
//
//  1. predictors (predict.go): how roleout computes the identity the
//     kind's controller will give a template, offline; and
//  2. observers (apply/observe.go): how apply reads the identity the
//     controller gave it, after a wave.
//
// Both name the kind as "Kind.group"; a test in agent
// (TestWorkloadKindTables) fails when the two differ. A custom kind also
// needs its CRD among the built-in ones (builtin_crds.go) to predict
// without a cluster. Predictions and observations are one type,
// internal/object.Identity, which prints itself (Identity.String).
//
// Validate checks an object as the API server would on the server-side
// apply that creates it (validate.go): a Kubernetes kind against the
// OpenAPI schema of v1.37.2 and, for the kinds of createStrategies, the
// API server's own defaulting and create validation; a custom resource
// against its CRD, chosen as for predictions. render.NewPlan refuses a
// plan with an object it finds invalid.
//
// It is pure: no I/O, no logging (the built-in CRDs are embedded in the
// binary). It must not import agent, sources, apply or render (render
// imports it, not the other way round). docs/design.md, "Workload
// predictions", says how schemas and versions are chosen.
package revision
