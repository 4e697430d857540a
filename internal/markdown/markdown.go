package markdown

import "strings"

// special are the characters that can open inline markdown or HTML
// (emphasis, code, links, images, HTML tags, entities, table cells,
// strikethrough, math, escapes).
const special = "\\`*_[]<>&|~!#$"

// OneLine replaces the line endings of s with spaces.
func OneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
}

// Text returns s as inline text: on one line, with every character
// that could start markdown or HTML backslash-escaped.
func Text(s string) string {
	var b strings.Builder
	for _, r := range OneLine(s) {
		if strings.ContainsRune(special, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Code returns s as a code span, on one line: its backtick run is longer
// than any in s, and it is padded with a space on each side when s starts
// or ends with a backtick, or with spaces that the span would strip.
func Code(s string) string {
	s = OneLine(s)
	if s == "" {
		return "` `"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if s[0] == '`' || s[len(s)-1] == '`' ||
		(s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// Cell makes inline markdown safe inside a table cell: a pipe, even
// inside a code span, would end the cell.
func Cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Fence returns content as a fenced code block with the info string
// info: its fence is longer than any backtick run in content, so no line
// of it can close the block.
func Fence(info, content string) string {
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	fence := strings.Repeat("`", max(3, longestRun(content, '`')+1))
	return fence + info + "\n" + content + fence + "\n"
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}
