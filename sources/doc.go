// Package sources owns roleout's view of git: the domain types (a source,
// a Revision such as "main@sha1:1a2b3c4", pull-request heads), the git
// source built on go-git (list remote refs, fetch into an on-disk cache,
// verify commit signatures), the credentials and signing keys git
// operations use, and a fence on every git request over HTTP. The status
// branch is package statusstore's; it takes its credentials, transports
// and signatures from here.
//
// sources talks to git only through go-git, never the git program. It must
// not import agent, render or apply. docs/design.md, "Safety and trust",
// describes the checks.
package sources
