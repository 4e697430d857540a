package markdown

import "strings"

// The readers below check, in tests of what roleout writes, that text
// from a pull request stayed where it was put.

// Scan splits md into the lines outside fenced code blocks and
// the content of each block, with CommonMark's rule for backtick fences:
// a block closes at a line of at least as many backticks as opened it.
func Scan(md string) (outside, blocks []string) {
	fence := ""
	var block strings.Builder
	for _, line := range strings.Split(md, "\n") {
		if fence == "" {
			if strings.HasPrefix(line, "```") {
				fence = line[:longestRun(line, '`')]
				block.Reset()
				continue
			}
			outside = append(outside, line)
			continue
		}
		if t := strings.TrimRight(line, " "); strings.HasPrefix(t, fence) && strings.Trim(t, "`") == "" {
			blocks = append(blocks, block.String())
			fence = ""
			continue
		}
		block.WriteString(line + "\n")
	}
	return outside, blocks
}

// Unescaped returns line without its code spans and escaped
// characters: what would be read as markdown or HTML.
func Unescaped(line string) string {
	var out strings.Builder
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '`':
			n := 0
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			end := strings.Index(line[i+n:], strings.Repeat("`", n))
			if end < 0 {
				out.WriteString(line[i:])
				return out.String()
			}
			i += n + end + n - 1
		default:
			out.WriteByte(line[i])
		}
	}
	return out.String()
}

// Cells counts a table row's cells: pipes not escaped.
func Cells(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n - 1
}
