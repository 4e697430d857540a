// Package healthcheck is health rules for any kind, written as CEL
// expressions over the object, in the shape of Flux's healthCheckExprs:
// per apiVersion and kind, an expression for current (required), and
// optional ones for inProgress and failed. The wave gate
// (apply.Applier.WaitHealthy) uses a kind's rule instead of kstatus and
// roleout's built-in readiness.
//
// The object's top-level fields are the expressions' variables
// (apiVersion, kind, metadata, spec, status, data, ...): `status.ready ==
// true`. The expressions are evaluated in the order inProgress, failed,
// current; the first true decides, and none true is in progress. An
// expression that fails on an object (a field it does not have yet) is
// in progress, with the error as the message: as Flux does, the gate
// waits until its timeout rather than deciding on half an object. Use
// has() or the optional syntax (status.?ready.orValue(false)) to decide
// earlier.
//
// It is pure: no I/O, no logging. It imports nothing of roleout.
package healthcheck
