// Package secrets masks Secret values wherever roleout shows or records an
// object: role revisions on the status branch, diffs, previews and logs.
// A masked value is a digest that changes when the value changes and does
// not reveal it. It is a leaf package: it imports nothing from roleout.
package secrets
