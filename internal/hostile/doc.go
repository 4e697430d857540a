// Package hostile holds inputs an attacker would write, for the tests
// that show roleout survives them. It is imported by tests only and
// imports nothing of roleout.
package hostile
