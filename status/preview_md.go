package status

import (
	"fmt"
	"strings"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render"
)

// Markdown renders the preview for a reviewer: what a merge changes, in
// which order, which pods restart under which names, and the diff.
func (p Preview) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# roleout preview: app %s at %s (%s)\n\n", mdCode(p.App), mdCode(p.Ref), mdText(Short(p.Commit)))
	if p.Untrusted != "" {
		fmt.Fprintf(&b, "**Not applied:** %s. This is what it would do once a trusted key signs it.\n\n", mdText(p.Untrusted))
	}
	if p.Error != "" {
		fmt.Fprintf(&b, "**This head cannot be rolled out:**\n\n%s\n", mdFence("", p.Error))
		if p.Plan == nil {
			return b.String()
		}
	}
	changed, restarts := 0, 0
	for _, w := range p.Plan.Waves {
		for _, r := range w.Roles {
			if r.Changed {
				changed++
			}
			for _, wl := range r.Workloads {
				if wl.RestartsPods {
					restarts++
				}
			}
		}
	}
	fmt.Fprintf(&b, "Merging this changes **%d role(s)**; **%d workload(s) restart pods**.\n\n", changed, restarts)
	if len(p.Plan.Prerequisites) > 0 {
		fmt.Fprintf(&b, "Prerequisites first: %s.\n\n", refList(p.Plan.Prerequisites))
	}
	b.WriteString("| wave | upgradeOrder | role | change | revision | workloads |\n| --- | --- | --- | --- | --- | --- |\n")
	for i, w := range p.Plan.Waves {
		for _, r := range w.Roles {
			change := r.State()
			if r.Changed {
				change = "**" + mdText(change) + "**"
			}
			var wls []string
			for _, wl := range r.Workloads {
				restart := "no restart"
				if wl.RestartsPods {
					restart = "**restarts pods**"
				}
				wls = append(wls, fmt.Sprintf("%s → %s (%s)", mdText(wl.Kind+"/"+wl.Name), workloadMD(wl), restart))
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %d %s | %s |\n", i+1, w.UpgradeOrder, mdText(r.Name), change, r.RevisionNumber, mdCell(mdCode(r.RevisionName)), strings.Join(wls, "<br>"))
		}
	}
	if len(p.Plan.Prune) > 0 {
		fmt.Fprintf(&b, "\nLeft git (pruned after the last wave when the app prunes): %s.\n", refList(p.Plan.Prune))
	}
	if len(p.Plan.Unchecked) > 0 {
		fmt.Fprintf(&b, "\nNot checked against a schema (no CRD for their kind in the render, the cluster or roleout): %s.\n", refList(p.Plan.Unchecked))
	}
	if p.Diff != nil {
		c := p.Diff.Summary
		fmt.Fprintf(&b, "\n## Diff against %s\n\n%d create, %d update, %d delete, %d unchanged. Secret values are masked.\n",
			diffTarget(p.Diff), c.Create, c.Update, c.Delete, c.Unchanged)
		if n := p.Diff.NotCompared(); n > 0 {
			fmt.Fprintf(&b, "%d object(s) were not compared with the cluster but with the last status in git: those %s, and Secrets, which previews never read.\n", n, diff.OutsideAppNamespaces)
		}
		for _, s := range p.Diff.Steps {
			for _, o := range s.Objects {
				if o.Change == apply.NoChange {
					continue
				}
				fmt.Fprintf(&b, "\n**%s** %s (%s)\n", mdText(string(o.Change)), mdCode(o.Object.String()), mdText(s.Role))
				if o.NotCompared != "" {
					fmt.Fprintf(&b, "\nNot compared with the cluster (%s): compared with the last status in git.\n", mdText(o.NotCompared))
				}
				if o.Diff != "" {
					fmt.Fprintf(&b, "\n%s", mdFence("diff", o.Diff))
				}
			}
		}
	}
	return b.String()
}

func diffTarget(d *diff.Report) string {
	if d.Offline {
		return "the last status in git"
	}
	return "the cluster (server-side dry run)"
}

// workloadMD is a workload's predicted identity inside a table cell,
// marked unverified with the reason (escaped: it names the workload's
// kind) when roleout cannot vouch for it.
func workloadMD(wl render.WorkloadSummary) string {
	switch {
	case wl.Unverified == "":
		return predictionMD(wl.Predicted)
	case wl.Predicted.IsZero():
		return "no prediction, **unverified**: " + mdText(wl.Unverified)
	default:
		return predictionMD(wl.Predicted) + ", **unverified**: " + mdText(wl.Unverified)
	}
}

// predictionMD is a prediction as a code span inside a table cell.
func predictionMD(p object.Identity) string { return mdCell(mdCode(p.String())) }

func refList[T fmt.Stringer](refs []T) string {
	var out []string
	for _, r := range refs {
		out = append(out, mdCode(r.String()))
	}
	return strings.Join(out, ", ")
}

// Text from a pull request (object and role names, refs, errors, diffs)
// never leaves the place the preview puts it: inline text is escaped,
// code spans and fenced blocks use a backtick run longer than any in
// their content (CommonMark), and nothing keeps a newline that could
// start a block of its own.

// mdSpecial are the characters that can open inline markdown or HTML
// (emphasis, code, links, images, HTML tags, entities, table cells,
// strikethrough, math, escapes).
const mdSpecial = "\\`*_[]<>&|~!#$"

// oneLine replaces the line endings of s with spaces.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
}

// mdText returns s as inline text: on one line, with every character
// that could start markdown or HTML backslash-escaped.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		if strings.ContainsRune(mdSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode returns s as a code span, on one line: its backtick run is longer
// than any in s, and it is padded with a space on each side when s starts
// or ends with a backtick, or with spaces that the span would strip.
func mdCode(s string) string {
	s = oneLine(s)
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

// mdCell makes inline markdown safe inside a table cell: a pipe, even
// inside a code span, would end the cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// mdFence returns content as a fenced code block with the info string
// info: its fence is longer than any backtick run in content, so no line
// of it can close the block.
func mdFence(info, content string) string {
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
