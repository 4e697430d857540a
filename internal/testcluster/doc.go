// Package testcluster starts a real, local Kubernetes control plane for
// tests and for `make cluster-up`: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and kwok with fake nodes, all
// built from the Go module proxy by `make cluster-bins` into bin/.
//
// The API server serves on a free loopback port with a fresh CA, a static
// admin token (system:masters), RBAC and a fresh service-account key pair.
// kwok's nodes make pods Running and Ready, but no container runs: enough
// for rollouts, readiness, ReplicaSets and ControllerRevisions, which is
// what roleout drives.
//
// The API server keeps an audit log of every write request; Writes reads
// it, so tests can count exactly what a program wrote.
//
// Every process runs in its own process group and is killed when the test
// binary dies; Stop waits until the groups are gone. A test package starts
// one cluster in TestMain with Main.
//
// It is test support: product packages must not import it, and it imports
// nothing from roleout.
package testcluster
