// Package markdown writes text from untrusted places (a pull request:
// object and role names, refs, errors, diffs) into Markdown so that it
// never leaves the place it is put: inline text is escaped, code spans
// and fenced blocks use a backtick run longer than any in their content
// (CommonMark), and nothing keeps a newline that could start a block of
// its own. Previews on the status branch and comments on a forge write
// with it.
//
// It imports nothing of roleout.
package markdown
