// Package validate checks an object as the API server would on the
// server-side apply that creates it, offline, by linking the server's
// code: a Kubernetes kind against the OpenAPI schema of v1.37.2 and, for
// the kinds of createStrategies, the API server's own defaulting and
// create validation; a custom resource against its CRD, chosen by
// render/schema as predictions choose it. plan.New refuses a plan
// with an object it finds invalid (Validation.Errors).
//
// It is pure: no I/O, no logging. It must not import agent, sources,
// apply or render; render imports it.
package validate
