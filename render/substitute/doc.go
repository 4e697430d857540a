// Package substitute replaces ${var} in an app's rendered objects after
// the build, as Flux's postBuild substitution does, with the same syntax
// (bash's ${var}, ${var:=default}, ${var:-default} and the other
// operators of github.com/fluxcd/pkg/envsubst) and the same opt-out: an
// object labelled or annotated kustomize.toolkit.fluxcd.io/substitute:
// disabled is kept as it is.
//
// Each object is written as YAML, substituted as text and read back, as
// Flux does, so `replicas: ${count}` with count "3" becomes the number 3.
// An unset variable without a default is an error naming the object and
// the variable, unless AllowUnset makes it empty.
//
// It is pure: no I/O, no logging. It imports internal/object only.
package substitute
