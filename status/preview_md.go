package status

import (
	"fmt"
	"strings"

	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/markdown"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// Markdown renders the preview for a reviewer: what a merge changes, in
// which order, which pods restart under which names, and the diff.
func (p Preview) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# roleout preview: app %s at %s (%s)\n\n", markdown.Code(p.App), markdown.Code(p.Ref), markdown.Text(Short(p.Commit)))
	if p.Untrusted != "" {
		fmt.Fprintf(&b, "**Not applied:** %s. This is what it would do once a trusted key signs it.\n\n", markdown.Text(p.Untrusted))
	}
	if p.Error != "" {
		fmt.Fprintf(&b, "**This head cannot be rolled out:**\n\n%s\n", markdown.Fence("", p.Error))
		if p.Plan == nil {
			return b.String()
		}
	}
	changed, restarts := p.Changes()
	fmt.Fprintf(&b, "Merging this changes **%d role(s)**; **%d workload(s) restart pods**.\n\n", changed, restarts)
	if len(p.Plan.Prerequisites) > 0 {
		fmt.Fprintf(&b, "Prerequisites first: %s.\n\n", refList(p.Plan.Prerequisites))
	}
	b.WriteString("| wave | upgradeOrder | role | change | revision | workloads |\n| --- | --- | --- | --- | --- | --- |\n")
	for i, w := range p.Plan.Waves {
		for _, r := range w.Roles {
			change := r.State()
			if r.Changed {
				change = "**" + markdown.Text(change) + "**"
			}
			var wls []string
			for _, wl := range r.Workloads {
				restart := "no restart"
				if wl.RestartsPods {
					restart = "**restarts pods**"
				}
				wls = append(wls, fmt.Sprintf("%s → %s (%s)", markdown.Text(wl.Kind+"/"+wl.Name), workloadMD(wl), restart))
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %d %s | %s |\n", i+1, w.UpgradeOrder, markdown.Text(r.Name), change, r.RevisionNumber, markdown.Cell(markdown.Code(r.RevisionName)), strings.Join(wls, "<br>"))
		}
	}
	if len(p.Plan.Prune) > 0 {
		fmt.Fprintf(&b, "\nLeft git (pruned after the last wave when the app prunes): %s.\n", refList(p.Plan.Prune))
	}
	if len(p.Plan.Unchecked) > 0 {
		fmt.Fprintf(&b, "\nNot checked against a schema (no CRD for their kind in the render, the cluster or roleout): %s.\n", refList(p.Plan.Unchecked))
	}
	if len(p.Plan.Warnings) > 0 {
		b.WriteString("\n**Order warnings**: a wave waits on something a later wave brings.\n\n")
		for _, w := range p.Plan.Warnings {
			fmt.Fprintf(&b, "- %s\n", markdown.Text(w))
		}
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
				if o.Change == model.NoChange {
					continue
				}
				fmt.Fprintf(&b, "\n**%s** %s (%s)\n", markdown.Text(string(o.Change)), markdown.Code(o.Object.String()), markdown.Text(s.Role))
				if o.NotCompared != "" {
					fmt.Fprintf(&b, "\nNot compared with the cluster (%s): compared with the last status in git.\n", markdown.Text(o.NotCompared))
				}
				if o.Diff != "" {
					fmt.Fprintf(&b, "\n%s", markdown.Fence("diff", o.Diff))
				}
			}
		}
	}
	return b.String()
}

// Changes counts what merging the previewed head changes: the roles it
// changes, the workloads whose pods restart (0, 0 without a plan).
func (p Preview) Changes() (roles, restarts int) {
	if p.Plan == nil {
		return 0, 0
	}
	for _, w := range p.Plan.Waves {
		for _, r := range w.Roles {
			if r.Changed {
				roles++
			}
			for _, wl := range r.Workloads {
				if wl.RestartsPods {
					restarts++
				}
			}
		}
	}
	return roles, restarts
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
func workloadMD(wl model.WorkloadSummary) string {
	switch {
	case wl.Unverified == "":
		return predictionMD(wl.Predicted)
	case wl.Predicted.IsZero():
		return "no prediction, **unverified**: " + markdown.Text(wl.Unverified)
	default:
		return predictionMD(wl.Predicted) + ", **unverified**: " + markdown.Text(wl.Unverified)
	}
}

// predictionMD is a prediction as a code span inside a table cell.
func predictionMD(p object.Identity) string { return markdown.Cell(markdown.Code(p.String())) }

func refList[T fmt.Stringer](refs []T) string {
	var out []string
	for _, r := range refs {
		out = append(out, markdown.Code(r.String()))
	}
	return strings.Join(out, ", ")
}
