// Package sources owns roleout's view of git: the domain types (a source,
// a Revision such as "main@sha1:1a2b3c4", pull-request heads), the git
// source built on go-git (list remote refs, fetch into an on-disk cache,
// verify commit signatures) and the status branch: the write-back that
// commits to it and pushes, and reads that, with a status signing key,
// trust only the commits that key signed.
//
// sources talks to git only through go-git, never the git program. It must
// not import agent, render or apply. docs/design.md, "The status branch"
// and "Safety and trust", describe the formats and the checks.
package sources
