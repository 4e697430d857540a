// Package layout holds a test that enforces the import rules of
// DESIGN.md §6: agent may import sources, render and apply; those three
// never import each other or agent; render/revision imports none of them;
// no product package imports the test harnesses or the command.
package layout
