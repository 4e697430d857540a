// Package agent is roleout's reconciler. It owns the reconcile loop (poll →
// fetch → render → plan → apply → report; docs/design.md, "The reconcile
// cycle"), schedules and rollout windows, pull-request previews, drift and
// its healing, rollback and the HTTP endpoints (hooks, metrics, health).
//
// Where to read:
//
//   - the loop: agent.go (Run), cycle.go (RunOnce: one pass over the
//     apps), reconcile.go (one app), apprun.go (one app's run as a value:
//     its cluster, status writer, report, fail, checkpoint), late.go (the
//     records that wait for the end of a pass), planning.go (the one
//     planning pipeline), rollout.go, records.go (what a run writes to the
//     status branch);
//   - what holds an app back: hold.go (paused, suspended), and windows
//     (config.Windows, checked in reconcile.go);
//   - drift: drift_heal.go (what a reconcile does about it; the watches are
//     package drift), drift_check.go (the periodic full comparison);
//   - previews: previews.go (a round), previewq.go (their order, the
//     worker's wake-ups, giving way to the loop), preview_identity.go;
//   - what the CLI calls: oneshot.go (PlanDir, PlanFromGit, Diff, DiffDir,
//     Statuses, History);
//   - rollback.go: a rollback request, carried out by the reconcile and
//     held until a commit changes the role or resume ends it;
//   - sharded.go: dynamic sharding (RunSharded, begin: which apps this
//     replica may touch; package sharding keeps the Leases); leader.go:
//     leader election (sharding.Election); http.go: /healthz, /readyz,
//     /metrics and /hook (package webhook verifies it); flights.go: the
//     waves in flight, for the web view;
//   - how an app is written: applyas.go (field manager, ownership, apply
//     and prune options), renderer.go (the kustomize adapter).
//
// The formats live in packages of their own, which the CLI and the web
// view read too: config (roleout.yaml), status (the status branch), diff
// (what a change would do) and control (the agent's own objects: the
// control ConfigMap, the status anchor, the mask key); drift holds the
// watches' state.
//
// agent declares the contract it consumes (contract.go: a fetcher, a
// renderer, a planner, the cluster and what reads it, a status store),
// every capability it uses in the interface and none found by type
// assertion, and wires the implementations from sources, render and apply
// into them (NewDeps). It is the only package besides cmd/roleout that
// logs (drift and sharding log through the logger it hands them). internal/layout holds it to the imports docs/design.md draws.
package agent
