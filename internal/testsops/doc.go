// Package testsops encrypts test data with the real sops program, built
// from the SOPS project's Go module into bin/sops by make build-sops
// (make test builds it), and makes age keys with filippo.io/age: tests
// never write SOPS metadata by hand.
//
// Tests only.
package testsops
