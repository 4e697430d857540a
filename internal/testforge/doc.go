// Package testforge runs a real forge for tests: Gitea (code.gitea.io/gitea
// from the Go module proxy, built by hack/gitea.sh into bin/gitea the first
// time a test needs it), on loopback with SQLite, with an admin user and
// its API token, made through Gitea's own CLI.
package testforge
