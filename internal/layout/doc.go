// Package layout holds a test that enforces the import rules of
// docs/design.md, "Packages and import rules": agent may import sources,
// render and apply; those three never import each other or agent;
// render/revision imports none of them; no product package imports the
// test harnesses or the command.
package layout
