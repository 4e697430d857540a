// Package ui is roleout's read-only web view (docs/design.md, "The web
// view"): every app with its phase, an app's waves in upgradeOrder with
// each role's revision, result and what a waiting wave waits on, each
// workload's predicted identity beside the observed one, the rollout
// history, pull-request previews and role revisions.
//
// Everything it shows comes from the status branch (a Snapshot, read by a
// Store that polls the branch's head), so `roleout ui` needs no cluster
// and `roleout run` serves the same pages. Pages are html/template with a
// little JavaScript served from the binary, pictures are SVG drawn by the
// server, and updates arrive as Server-Sent Events. The view answers GET
// and HEAD only, escapes everything from the repository (it is
// untrusted), sends a strict Content-Security-Policy, and shows an app
// only to readers the Authorizer lets read in every namespace of its
// Scope (where its config and its records say it writes; cluster-wide
// for cluster-scoped objects).
package ui
