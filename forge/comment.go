package forge

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"sort"
	"strconv"
	"strings"

	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/markdown"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/status"
)

// Marker is the hidden line that marks roleout's comments on a pull
// request; the part line after it numbers a comment split in parts and
// digests what roleout wrote, so an edit by a person shows.
const Marker = "<!-- roleout -->"

// partLine is "<!-- roleout part I/N sha256:HEX -->".
const partPrefix = "<!-- roleout part "

// Comment is the living comment of one pull request head, as parts of at
// most Limit characters each.
type CommentParts []string

// headerRoom is what a part's two marker lines take.
const headerRoom = 120

// RenderComment renders the comment of a pull request at head from the
// previews of its apps (each app's status.Preview of the pull request's
// ref; previews of another head are left out), as parts of at most limit
// bytes: a summary table first, then a collapsible section per role with
// its diff, split at role boundaries. Secrets show which keys changed,
// never a value. Everything from the pull request is escaped.
func RenderComment(head string, previews []status.Preview, limit int) CommentParts {
	sort.Slice(previews, func(i, j int) bool { return previews[i].App < previews[j].App })
	var current []status.Preview
	for _, p := range previews {
		if p.Commit == head {
			current = append(current, p)
		}
	}
	room := limit - headerRoom
	blocks := summary(head, current, room)
	for _, p := range current {
		blocks = append(blocks, failure(p)...)
		blocks = append(blocks, sections(p, room)...)
	}
	return pack(blocks, room)
}

// blockWriter writes blocks of at most room bytes: a table or a section
// that grows past it is closed, and goes on in a new block that opens the
// same way (the table's header again, "(continued)" sections).
type blockWriter struct {
	room   int
	open   string // what a new block starts with
	close  string // what a block ends with
	blocks []string
	cur    strings.Builder
}

// start begins a block that opens with open and closes with close.
func (w *blockWriter) start(open, close string) {
	w.flush()
	w.open, w.close = open, close
	w.cur.WriteString(open)
}

// add writes entry, first closing the block and opening another when it
// would not fit; an entry too big alone is cut.
func (w *blockWriter) add(entry string) {
	if max := w.room - len(w.open) - len(w.close) - 64; len(entry) > max {
		entry = clipText(entry, max-100) + "\n"
	}
	if w.cur.Len()+len(entry)+len(w.close) > w.room && w.cur.Len() > len(w.open) {
		w.flush()
		w.cur.WriteString(w.open)
	}
	w.cur.WriteString(entry)
}

// flush ends the current block.
func (w *blockWriter) flush() {
	if w.cur.Len() > 0 {
		w.blocks = append(w.blocks, w.cur.String()+w.close)
		w.cur.Reset()
	}
}

// summary is the comment's first blocks: what merging does, app by app,
// role by role in upgradeOrder (a table of many roles goes on in further
// blocks, its header repeated).
func summary(head string, previews []status.Preview, room int) []string {
	title := fmt.Sprintf("### roleout: what merging %s does\n\n", markdown.Code(status.Short(head)))
	if len(previews) == 0 {
		return []string{title + "No app of this agent has a preview of this head yet.\n"}
	}
	w := &blockWriter{room: room}
	w.start(title+tableHeader, "")
	w.open = tableHeader
	for _, p := range previews {
		app := markdown.Text(p.App) // Text escapes pipes already; Cell is for code spans
		if p.Plan == nil {
			w.add(fmt.Sprintf("| %s | | | **cannot be rolled out** | | | see below |\n", app))
			continue
		}
		counts := roleCounts(p.Diff)
		for i, wave := range p.Plan.Waves {
			for _, r := range wave.Roles {
				w.add(fmt.Sprintf("| %s | %d | %s | %s | %d %s | %s | %s |\n", app, i+1, markdown.Text(r.Name),
					action(r), r.RevisionNumber, markdown.Cell(markdown.Code(r.RevisionName)), counts.of(r.Name), restarts(r.Workloads)))
			}
		}
		if p.Error != "" {
			w.add(fmt.Sprintf("| %s | | | **failed** | | | see below |\n", app))
		}
	}
	w.flush()
	return w.blocks
}

// tableHeader opens the summary table.
const tableHeader = "| app | wave | role | action | revision | objects + / ~ / − | pods restart (predicted) |\n| --- | --- | --- | --- | --- | --- | --- |\n"

func action(r model.RoleSummary) string {
	if !r.Changed {
		return "unchanged"
	}
	return "**" + markdown.Text(r.State()) + "**"
}

// restarts lists the workloads whose pods restart, with the names their
// controller will give them; a prediction roleout cannot vouch for is
// marked.
func restarts(ws []model.WorkloadSummary) string {
	var out []string
	for _, w := range ws {
		if !w.RestartsPods {
			continue
		}
		s := markdown.Text(w.Kind+"/"+w.Name) + " → " + markdown.Cell(markdown.Code(w.Predicted.String()))
		if w.Unverified != "" {
			s += " (**unverified**: " + markdown.Text(w.Unverified) + ")"
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "<br>")
}

// counts are a diff's counts by step (role).
type counts map[string]diff.Counts

func roleCounts(d *diff.Report) counts {
	out := counts{}
	if d != nil {
		for _, s := range d.Steps {
			out[s.Role] = s.Counts
		}
	}
	return out
}

func (c counts) of(role string) string {
	n, ok := c[role]
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%d / %d / %d", n.Create, n.Update, n.Delete)
}

// failure is the block saying why an app's preview failed (render,
// validation, confinement, policy), with the error.
func failure(p status.Preview) []string {
	if p.Error == "" {
		return nil
	}
	return []string{fmt.Sprintf("**%s cannot be rolled out at this head:**\n\n%s", markdown.Text(p.App), markdown.Fence("", clipText(p.Error, 4000)))}
}

// sections are one collapsible block per step of the app's diff that
// changes something; a step too big for one block goes on in more.
func sections(p status.Preview, room int) []string {
	if p.Diff == nil {
		return nil
	}
	w := &blockWriter{room: room}
	for _, s := range p.Diff.Steps {
		if !s.Counts.Changed() && s.Change == "" {
			continue
		}
		// The summary line is HTML, where a backslash escapes nothing.
		title := fmt.Sprintf("%s · %s: %d create, %d update, %d delete", htmlText(p.App), htmlText(stepName(s)), s.Counts.Create, s.Counts.Update, s.Counts.Delete)
		w.start(fmt.Sprintf("<details><summary>%s</summary>\n\n", title), "</details>\n")
		w.open = fmt.Sprintf("<details><summary>%s (continued)</summary>\n\n", title)
		if s.Note != "" {
			w.add(fmt.Sprintf("%s\n\n", markdown.Text(s.Note)))
		}
		for _, o := range s.Objects {
			if o.Change == model.NoChange {
				continue
			}
			entry := fmt.Sprintf("**%s** %s\n\n", markdown.Text(string(o.Change)), markdown.Code(o.Object.String()))
			switch {
			case o.Object.Kind == "Secret" && o.Object.Group() == "":
				entry += secretChange(o)
				if n, ok := p.SecretBytes[o.Object.String()]; ok {
					entry += fmt.Sprintf(" (%d bytes of values)", n)
				}
				entry += "; values are never shown.\n\n"
			case o.Diff != "":
				entry += markdown.Fence("diff", clipText(o.Diff, min(16000, room/2))) + "\n"
			}
			w.add(entry)
		}
	}
	w.flush()
	return w.blocks
}

// htmlText is s on one line, HTML-escaped: text inside an HTML block.
func htmlText(s string) string { return html.EscapeString(markdown.OneLine(s)) }

func stepName(s diff.Step) string {
	switch s.Role {
	case diff.PrerequisitesStep, diff.PruneStep:
		return s.Role
	}
	return fmt.Sprintf("role %s (upgradeOrder %d)", s.Role, s.UpgradeOrder)
}

// secretChange says what changed of a Secret: which keys, never a value.
func secretChange(o diff.Object) string {
	if len(o.Fields) == 0 {
		return "Secret " + markdown.Text(string(o.Change))
	}
	var keys []string
	for _, f := range o.Fields {
		keys = append(keys, markdown.Code(f))
	}
	return "changed: " + strings.Join(keys, ", ")
}

// pack puts blocks, each at most room bytes, into parts of at most room
// bytes, in order, and heads each part with the marker and its part line.
func pack(blocks []string, room int) CommentParts {
	var parts CommentParts
	var cur strings.Builder
	for _, b := range blocks {
		b = strings.TrimRight(b, "\n") + "\n\n"
		if cur.Len() > 0 && cur.Len()+len(b) > room {
			parts = append(parts, cur.String())
			cur.Reset()
		}
		cur.WriteString(b)
	}
	if cur.Len() > 0 || len(parts) == 0 {
		parts = append(parts, cur.String())
	}
	for i, body := range parts {
		parts[i] = fmt.Sprintf("%s\n%s%d/%d sha256:%s -->\n%s", Marker, partPrefix, i+1, len(parts), digest(body), body)
	}
	return parts
}

// digest is the short digest of what roleout wrote in a part.
func digest(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:8])
}

// partOf parses a comment roleout wrote, one that starts with Marker: its
// part number, and whether its body is still what roleout wrote (false: a
// person edited it).
func partOf(body string) (part int, intact, ok bool) {
	rest, found := strings.CutPrefix(body, Marker+"\n"+partPrefix)
	if !found { // a comment that merely quotes the marker is not roleout's
		return 1, false, strings.HasPrefix(body, Marker)
	}
	line, content, _ := strings.Cut(rest, "\n")
	num, more, _ := strings.Cut(line, "/")
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return 1, false, true
	}
	_, sum, _ := strings.Cut(more, " sha256:")
	return n, strings.TrimSuffix(sum, " -->") == digest(content), true
}

// clipText cuts s to n bytes at a rune and says how much was left out.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n, 0)
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… %d more bytes; the whole preview is on the status branch", len(s)-cut)
}
