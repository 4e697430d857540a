// Package apply writes plans to a cluster: server-side apply (field
// manager "roleout", or one per call, migrated from "roleout") wave by
// wave with bounded concurrency, ownership checks before any write,
// health waits with kstatus, pruning in reverse order of objects the
// app's inventory owns (persistent kinds only on opt-in), and server-side
// dry-run diffs. Results are returned as values,
// never logged.
//
// apply must not import agent, sources or render (model gives it the
// name of a diff's changes, ObjectDiff); it receives the objects
// and waves to apply as plain data. The agent sees it through its
// Cluster and ClusterReader interfaces (docs/design.md, "The reconcile
// cycle").
package apply
