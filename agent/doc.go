// Package agent is roleout's reconciler. It owns the reconcile loop (poll →
// fetch → render → plan → apply → report; docs/design.md, "The reconcile
// cycle"), schedules and rollout windows, the status model that is
// committed to git, pull-request previews and the HTTP endpoints (hooks,
// metrics, health).
//
// agent declares the small interfaces it consumes (a fetcher, a renderer,
// a planner, an applier, a status writer) and wires the implementations
// from sources, render and apply into them. It is the only package besides
// cmd/roleout that logs.
//
// agent may import sources, render, render/revision and apply. It must not
// import cmd/roleout or internal test harnesses outside tests.
package agent
