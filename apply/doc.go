// Package apply writes plans to a cluster: server-side apply (field
// manager "roleout") wave by wave with bounded concurrency, health waits
// with kstatus, pruning in reverse order of objects the app's inventory
// owns, and server-side dry-run diffs. Results are returned as values,
// never logged.
//
// apply must not import agent, sources or render; it receives the objects
// and waves to apply as plain data.
package apply
