// Command roleout is the roleout CLI and agent: render, plan, diff, run,
// history, rollback and version. It is the only place that parses flags,
// sets up logging, handles signals and exits the process; the work itself
// is in agent, sources, render and apply.
//
// It goes through agent for everything it does (agent.New, PlanDir,
// PlanFromGit, Diff, DiffDir, Rollback, …) and imports render and apply
// only for the types it prints; never sources, render/revision, the
// internal leaves or the test harnesses outside tests (internal/layout,
// docs/design.md "Packages and import rules").
package main
