// Package agent is roleout's reconciler. It owns the reconcile loop (poll →
// fetch → render → plan → apply → report; docs/design.md, "The reconcile
// cycle"), schedules and rollout windows, the status model that is
// committed to git, pull-request previews and the HTTP endpoints (hooks,
// metrics, health).
//
// Where to read:
//
//   - the loop: agent.go (RunOnce), reconcile.go (one app), apprun.go (one
//     app's run as a value: its cluster, status writer, report, fail,
//     checkpoint), planning.go (the one planning pipeline), rollout.go;
//   - what the CLI calls: cli.go (PlanDir, PlanFromGit, Diff, DiffDir),
//     rollback.go, control.go;
//   - the agent config: config.go (types, config.Parse), config_validate.go,
//     config_explain.go (error messages);
//   - the status branch's formats: status.go, statusfiles.go,
//     status_report.go, history.go.
//
// agent declares the small interfaces it consumes (interfaces.go: a
// fetcher, a renderer, a planner, the cluster and what reads it, a status
// store) and wires the implementations from sources, render and apply into
// them (NewDeps). It is the only package besides cmd/roleout that logs.
//
// agent may import sources, render, render/revision and apply. It must not
// import cmd/roleout or internal test harnesses outside tests.
package agent
