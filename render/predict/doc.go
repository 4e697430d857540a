// Package predict computes, offline and without a cluster, the identity a
// workload's controller will give its template: Deployment
// pod-template-hash and ReplicaSet name, StatefulSet ControllerRevision,
// DaemonSet controller-revision-hash, LeaderWorkerSet
// template-revision-hash, StormService ControllerRevision and per-role
// role-template-hash. Predictions are internal/object.Identity, the type
// observations use too, which prints itself (Identity.String).
//
// A custom workload's schema comes from a CRD chosen by render/schema
// (the render's, the cluster's, or one built in). PredictOutcome says
// which (Schema), and marks a prediction roleout cannot vouch for (no
// schema at all, a template a webhook it does not model rewrites, or a
// cluster that runs another version of the code than roleout models:
// Skew, Controllers) with the reason (Outcome.Unverified).
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
// needs its CRD among the built-in ones (render/schema) to predict
// without a cluster, and its controller in Controllers for skew.
//
// It is pure: no I/O, no logging. It must not import agent, sources,
// apply or render; render imports it.
package predict
