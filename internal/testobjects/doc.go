// Package testobjects reads the Kubernetes objects tests work with: YAML
// documents written inline, files of testdata and the files of a Go
// module (a controller's CRDs), in one way, instead of a loader per test
// file.
//
// It is for tests only (internal/layout); it imports nothing of roleout.
package testobjects
