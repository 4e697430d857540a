// Command roleout is the roleout CLI and agent: render, plan, diff, run,
// history, rollback and version. It is the only place that parses flags,
// sets up logging, handles signals and exits the process; the work itself
// is in agent, sources, render and apply.
//
// It goes through agent for what touches git, a render or a cluster
// (agent.New, PlanDir, PlanFromGit, Diff, DiffDir, Rollback, …) and reads
// the formats it prints from config, status, diff, control and model;
// never sources, render, apply or the test harnesses outside
// tests (internal/layout, docs/design.md "Packages and import rules").
package main
