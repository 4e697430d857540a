// Package object holds what roleout means by "the same object", once:
//
//   - Ref, an object's identity (apply.ObjectRef and render.ObjectRef are
//     aliases of it);
//   - Normalize, the one normaliser that the template hashes, the role
//     records, the offline diff and the live diff all use, so that none of
//     them sees a change another does not;
//   - the roleout.dev/* labels and annotations (labels.go);
//   - Identity, the identity a workload's controller gives its template,
//     predicted (render/revision) or observed (apply), with one way to
//     print it.
//
// It is a leaf: it imports nothing of roleout (internal/layout enforces
// it). See docs/design.md, "Packages and import rules".
package object
