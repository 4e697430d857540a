// Package testgit runs a real git server for tests: the git program's own
// `git http-backend` behind net/http/cgi on a loopback port (smart HTTP,
// push enabled, optional basic auth and bearer token), with a request counter per
// repository and endpoint so tests can assert, for example, that an idle
// poll made no fetch.
//
// Its fixture helpers build repositories with the git program: commits on
// branches, tags, pull-request refs (refs/pull/N/head) and force-pushes;
// commits and tags signed by git itself with PGP (gpg, in a temporary
// GNUPGHOME) or SSH keys (ssh-keygen) made for the test; and large
// histories written with git fast-import.
// This package is the only place roleout runs the git program; product
// code talks to git through go-git.
//
// It is test support: product packages must not import it, and it imports
// nothing from roleout.
package testgit
