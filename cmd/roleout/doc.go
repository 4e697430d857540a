// Command roleout is the roleout CLI and agent: render, plan, diff, run,
// history, rollback and version. It is the only place that parses flags,
// sets up logging, handles signals and exits the process; the work itself
// is in agent, sources, render and apply.
//
// It may import every roleout package except the test harnesses
// (internal/testcluster, internal/testgit) outside tests.
package main
