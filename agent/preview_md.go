package agent

import (
	"fmt"
	"strings"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/render/revision"
)

// previewMarkdown renders a preview for a reviewer: what a merge changes,
// in which order, which pods restart under which names, and the diff.
func previewMarkdown(p Preview) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# roleout preview: app `%s` at `%s` (%s)\n\n", p.App, p.Ref, short(p.Commit))
	if p.Untrusted != "" {
		fmt.Fprintf(&b, "**Not applied:** %s. This is what it would do once a trusted key signs it.\n\n", p.Untrusted)
	}
	if p.Error != "" {
		fmt.Fprintf(&b, "**This head cannot be rolled out:**\n\n```\n%s\n```\n", p.Error)
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
			change := "unchanged"
			if r.Changed {
				change = "**" + r.Action + "**"
			}
			var wls []string
			for _, wl := range r.Workloads {
				restart := "no restart"
				if wl.RestartsPods {
					restart = "**restarts pods**"
				}
				wls = append(wls, fmt.Sprintf("%s/%s → %s (%s)", wl.Kind, wl.Name, predictionMD(wl.Predicted), restart))
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %d `%s` | %s |\n", i+1, w.UpgradeOrder, r.Name, change, r.Revision, r.RevisionName, strings.Join(wls, "<br>"))
		}
	}
	if len(p.Plan.Prune) > 0 {
		fmt.Fprintf(&b, "\nLeft git (pruned after the last wave when the app prunes): %s.\n", refList(p.Plan.Prune))
	}
	if p.Diff != nil {
		c := p.Diff.Summary
		fmt.Fprintf(&b, "\n## Diff against %s\n\n%d create, %d update, %d delete, %d unchanged. Secret values are masked.\n",
			diffTarget(p.Diff), c.Create, c.Update, c.Delete, c.Unchanged)
		for _, s := range p.Diff.Steps {
			for _, o := range s.Objects {
				if o.Change == apply.NoChange {
					continue
				}
				fmt.Fprintf(&b, "\n**%s** `%s` (%s)\n", o.Change, o.Object, s.Role)
				if o.Diff != "" {
					fmt.Fprintf(&b, "\n```diff\n%s```\n", o.Diff)
				}
			}
		}
	}
	return b.String()
}

func diffTarget(d *DiffReport) string {
	if d.Offline {
		return "the last status in git"
	}
	return "the cluster (server-side dry run)"
}

func predictionMD(p revision.Prediction) string { return "`" + DescribePrediction(p) + "`" }

func refList[T fmt.Stringer](refs []T) string {
	var out []string
	for _, r := range refs {
		out = append(out, "`"+r.String()+"`")
	}
	return strings.Join(out, ", ")
}

func short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}
