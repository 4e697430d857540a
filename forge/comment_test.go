package forge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/markdown"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/status"
)

// hostile is text a pull request controls that tries to leave its place.
const hostile = "x`` ```\n```\n# Injected heading\n<script>alert(1)</script>\n| a | b |\n[click](http://evil)"

const head = "0123456789abcdef0123456789abcdef01234567"

// preview is app's preview at head of roles roles, each with a
// Deployment that restarts and a ConfigMap whose diff is diffText, and a
// Secret in the first role.
func preview(app string, roles int, diffText string) status.Preview {
	p := status.Preview{App: app, Ref: "refs/pull/7/head", Commit: head, Plan: &model.Summary{}, Diff: &diff.Report{App: app}}
	for i := range roles {
		name := fmt.Sprintf("role-%03d", i)
		p.Plan.Waves = append(p.Plan.Waves, model.WaveSummary{UpgradeOrder: i + 1, Roles: []model.RoleSummary{{
			Name: name, UpgradeOrder: i + 1, Changed: true, Action: "update", RevisionNumber: 2, RevisionName: app + "-" + name + "-5c9f7d8b4",
			Workloads: []model.WorkloadSummary{{Kind: "Deployment", Name: name, RestartsPods: true, Predicted: object.Identity{PodTemplateHash: "6d9f8c7b5", ReplicaSetName: name + "-6d9f8c7b5"}}},
		}}})
		step := diff.Step{Role: name, UpgradeOrder: i + 1, Counts: diff.Counts{Update: 1}, Objects: []diff.Object{
			{ObjectDiff: model.ObjectDiff{Object: object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: app, Name: name}, Change: model.Update, Diff: diffText}},
		}}
		if i == 0 {
			step.Counts.Update++
			step.Objects = append(step.Objects, diff.Object{ObjectDiff: model.ObjectDiff{Object: object.Ref{APIVersion: "v1", Kind: "Secret", Namespace: app, Name: "db"},
				Change: model.Update, Diff: "-password: hunter2-before\n+password: hunter2-after", Fields: []string{"data.password"}}})
		}
		p.Diff.Steps = append(p.Diff.Steps, step)
	}
	return p
}

// TestCommentSummaryAndSecrets: the summary lists each app's roles in
// upgradeOrder with their action, revision, counts and the pods that
// restart under their predicted names; a Secret shows which keys
// changed, never a value; a failed preview says so with its error.
func TestCommentSummaryAndSecrets(t *testing.T) {
	failed := status.Preview{App: "broken", Ref: "refs/pull/7/head", Commit: head, Error: "render apps/broken: kustomize build: accumulating resources"}
	stale := preview("stale", 1, "-a\n+b")
	stale.Commit = "ffffffffffffffffffffffffffffffffffffffff"
	shop := preview("shop", 3, "-a: 1\n+a: 2")
	shop.SecretBytes = map[string]int{"Secret/shop/db": 23}
	parts := RenderComment(head, []status.Preview{shop, failed, stale}, 65536)
	if len(parts) != 1 {
		t.Fatalf("%d parts, want 1", len(parts))
	}
	c := parts[0]
	for _, want := range []string{
		Marker, "part 1/1", "what merging `0123456`",
		"| shop | 1 | role-000 | **update** | 2 `shop-role-000-5c9f7d8b4` | 0 / 2 / 0 | Deployment/role-000 → `ReplicaSet role-000-6d9f8c7b5` |",
		"| shop | 3 | role-002 |", "| broken | | | **cannot be rolled out** |",
		"**broken cannot be rolled out at this head:**", "accumulating resources",
		"<details><summary>shop · role role-000 (upgradeOrder 1): 0 create, 2 update, 0 delete</summary>",
		"`Secret/shop/db`", "changed: `data.password` (23 bytes of values); values are never shown",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("the comment lacks %q:\n%s", want, c)
		}
	}
	if strings.Contains(c, "hunter2") {
		t.Error("the comment shows a Secret's value")
	}
	if strings.Contains(c, "stale") {
		t.Error("the comment shows an app's preview of another head")
	}
	if i, j := strings.Index(c, "role-000 |"), strings.Index(c, "role-002 |"); i < 0 || j < i {
		t.Error("roles are not in upgradeOrder")
	}
}

// TestCommentSplitsAtRoleBoundaries: a 200-role preview past the limit
// is parts 1/N…N/N, each within the limit, the summary table's header
// repeated where it goes on, and every role's section whole in one part.
func TestCommentSplitsAtRoleBoundaries(t *testing.T) {
	const limit = 16384
	parts := RenderComment(head, []status.Preview{preview("big", 200, strings.Repeat("-old line\n+new line\n", 20))}, limit)
	if len(parts) < 3 {
		t.Fatalf("%d parts, want several", len(parts))
	}
	sections := 0
	for i, p := range parts {
		if len(p) > limit {
			t.Errorf("part %d is %d bytes, over %d", i+1, len(p), limit)
		}
		if !strings.HasPrefix(p, Marker+"\n"+partPrefix+fmt.Sprintf("%d/%d sha256:", i+1, len(parts))) {
			t.Errorf("part %d starts %q", i+1, p[:80])
		}
		if n, intact, ok := partOf(p); !ok || !intact || n != i+1 {
			t.Errorf("part %d reads as part %d, intact %v", i+1, n, intact)
		}
		if strings.Count(p, "<details>") != strings.Count(p, "</details>") {
			t.Errorf("part %d splits a role's section", i+1)
		}
		sections += strings.Count(p, "<details>")
		outside, blocks := markdown.Scan(p)
		for _, line := range outside {
			if strings.HasPrefix(line, "| big |") && markdown.Cells(line) != 7 {
				t.Errorf("a table row of %d cells: %s", markdown.Cells(line), line)
			}
		}
		_ = blocks
	}
	if sections != 200 {
		t.Errorf("%d role sections in all, want 200", sections)
	}
	if !strings.Contains(parts[1], "| app | wave | role |") && !strings.Contains(parts[0], "role-199 |") {
		t.Error("the summary table goes on without its header")
	}
}

// TestCommentContainsHostileText: every field a pull request controls
// holds text that tries to leave its place; nothing does.
func TestCommentContainsHostileText(t *testing.T) {
	p := preview(hostile, 1, hostile)
	p.Plan.Waves[0].Roles[0].Name = hostile
	p.Plan.Waves[0].Roles[0].RevisionName = hostile
	p.Plan.Waves[0].Roles[0].Workloads[0].Name = hostile
	p.Plan.Waves[0].Roles[0].Workloads[0].Unverified = hostile
	p.Diff.Steps[0].Role = hostile
	p.Diff.Steps[0].Note = hostile
	failed := status.Preview{App: hostile + "2", Commit: head, Error: hostile}
	for _, c := range RenderComment(head, []status.Preview{p, failed}, 65536) {
		outside, blocks := markdown.Scan(c)
		for _, line := range outside {
			if strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "### roleout") {
				t.Errorf("a heading of the attacker's: %q", line)
			}
			if title, ok := strings.CutPrefix(line, "<details><summary>"); ok {
				if title = strings.TrimSuffix(title, "</summary>"); strings.ContainsAny(title, "<>") {
					t.Errorf("HTML in a section's summary line: %q", line)
				}
				continue
			}
			raw := strings.NewReplacer("<br>", "", "</details>", "", Marker, "").Replace(line)
			if strings.HasPrefix(raw, partPrefix) {
				continue
			}
			if strings.Contains(markdown.Unescaped(raw), "<") {
				t.Errorf("raw HTML outside a code block: %q", line)
			}
			if strings.HasPrefix(line, "|") && markdown.Cells(line) != 7 {
				t.Errorf("a table row of %d cells: %q", markdown.Cells(line), line)
			}
		}
		for _, b := range blocks {
			if !strings.Contains(b, "# Injected heading\n<script>") {
				t.Errorf("a code block lost its content (closed early): %q", b)
			}
		}
	}
}
