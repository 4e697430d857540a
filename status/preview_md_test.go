package status

import (
	"fmt"
	"strings"
	"testing"

	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/markdown"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/render/schema"
)

// hostile is text a pull request controls that tries to leave its place.
const hostile = "x`` ```\n```\n# Injected heading\n<script>alert(1)</script>\n| a | b |\n[click](http://evil)"

// TestPreviewMarkdownContainsHostileText renders previews whose every
// field a pull request controls holds hostile text, and checks with a
// small CommonMark block scanner that nothing escaped: no heading, HTML
// or table row of the attacker's outside a code block, and every code
// block holds exactly what it was given.
func TestPreviewMarkdownContainsHostileText(t *testing.T) {
	wl := model.WorkloadSummary{Kind: "Deployment", Name: hostile, RestartsPods: true,
		Predicted: object.Identity{ReplicaSetName: hostile}}
	unverified := model.WorkloadSummary{Kind: hostile, Name: hostile, Unverified: "no CRD for " + hostile}
	plan := &model.Summary{
		Waves: []model.WaveSummary{{UpgradeOrder: 1, Roles: []model.RoleSummary{{
			Name: hostile, Changed: true, Action: "update", RevisionNumber: 2, RevisionName: hostile, Workloads: []model.WorkloadSummary{wl, unverified},
		}}}},
		Prerequisites: []object.Ref{{APIVersion: "v1", Kind: "Namespace", Name: hostile}},
		Prune:         []object.Ref{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "app", Name: hostile}},
		Unchecked:     []object.Ref{{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "app", Name: hostile}},
	}
	rep := &diff.Report{App: "app", Steps: []diff.Step{{Role: hostile, Objects: []diff.Object{{
		ObjectDiff:  model.ObjectDiff{Object: object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "app", Name: hostile}, Change: model.Update, Diff: hostile + "\n"},
		NotCompared: hostile,
	}}}}}
	cases := []struct {
		name string
		p    Preview
	}{
		{"a broken head", Preview{App: hostile, Ref: "refs/pull/" + hostile, Commit: hostile, Error: hostile, Untrusted: hostile}},
		{"a full preview", Preview{App: hostile, Ref: "refs/heads/" + hostile, Commit: "0123456789", Plan: plan, Diff: rep, Untrusted: hostile}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			md := tc.p.Markdown()
			outside, blocks := markdown.Scan(md)
			for _, line := range outside {
				switch {
				case strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "# roleout preview: ") && !strings.HasPrefix(line, "## Diff against "):
					t.Errorf("a heading escaped: %q", line)
				case strings.HasPrefix(line, "|") && !strings.HasPrefix(line, "| wave |") && !strings.HasPrefix(line, "| --- |") && !strings.HasPrefix(line, "| 1 |"):
					t.Errorf("a table row escaped: %q", line)
				case strings.Count(line, "|") > 0 && strings.HasPrefix(line, "| 1 |") && markdown.Cells(line) != 6:
					t.Errorf("the role row has %d cells, want 6: %q", markdown.Cells(line), line)
				}
				if raw := strings.ReplaceAll(line, "<br>", ""); strings.Contains(markdown.Unescaped(raw), "<") {
					t.Errorf("raw HTML outside a code block: %q", line)
				}
			}
			for _, b := range blocks {
				if !strings.Contains(b, "# Injected heading\n<script>") {
					t.Errorf("a code block lost its content (it was closed early): %q", b)
				}
			}
			if tc.p.Error != "" && len(blocks) != 1 || tc.p.Diff != nil && len(blocks) != 1 {
				t.Errorf("%d code blocks, want 1:\n%s", len(blocks), md)
			}
		})
	}
}

// TestPreviewMarkdownActionsAndUnverified: a first install says install,
// and a workload roleout cannot vouch for says unverified, with the
// reason, instead of stating its identity as a fact.
func TestPreviewMarkdownActionsAndUnverified(t *testing.T) {
	plan := &model.Summary{Waves: []model.WaveSummary{{UpgradeOrder: 1, Roles: []model.RoleSummary{{
		Name: "serving", Changed: true, Action: string(revision.Install), RevisionNumber: 1, RevisionName: "llm-serving-5c9f7d8b4",
		Workloads: []model.WorkloadSummary{
			{Kind: "LeaderWorkerSet", Name: "decode", RestartsPods: true, Predicted: object.Identity{TemplateRevisionHash: "79c7df5f65"}, Schema: schema.SchemaBuiltin},
			{Kind: "LeaderWorkerSet", Name: "next", RestartsPods: true, Predicted: object.Identity{TemplateRevisionHash: "6d9f8c7b5"},
				Unverified: "no CRD for LeaderWorkerSet.leaderworkerset.x-k8s.io v2 in the render, the cluster or built in"},
			{Kind: "StormService", Name: "pd", RestartsPods: true, Unverified: "the model.aibrix.ai/sidecar-injection annotation lets aibrix's webhook add a sidecar"},
		},
	}}}}}
	md := Preview{App: "llm", Ref: "refs/pull/1/head", Commit: "0123456789", Plan: plan}.Markdown()
	for _, want := range []string{
		"| 1 | 1 | serving | **install** | 1 `llm-serving-5c9f7d8b4` |",
		"LeaderWorkerSet/decode → `template-revision-hash 79c7df5f65` (**restarts pods**)",
		"LeaderWorkerSet/next → `template-revision-hash 6d9f8c7b5`, **unverified**: no CRD for LeaderWorkerSet.leaderworkerset.x-k8s.io v2 in the render, the cluster or built in (**restarts pods**)",
		"StormService/pd → no prediction, **unverified**: the model.aibrix.ai/sidecar-injection annotation lets aibrix's webhook add a sidecar (**restarts pods**)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("preview lacks %q:\n%s", want, md)
		}
	}
}

// TestPreviewFilesAreBounded: a preview of 200 objects with a 100 KiB diff
// each (a small patch applied to many objects) is committed as about a
// megabyte per file, not 20: each diff is cut at a line with a marker,
// and the diffs past the preview's bound are left out with one.
func TestPreviewFilesAreBounded(t *testing.T) {
	t.Parallel()
	line := "+    fat: " + strings.Repeat("x", 90) + "\n"
	big := strings.Repeat(line, (100<<10)/len(line))
	var objs []diff.Object
	for i := range 200 {
		objs = append(objs, diff.Object{ObjectDiff: model.ObjectDiff{Object: object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "web", Name: fmt.Sprintf("c%d", i)},
			Change: model.Update, Diff: big}})
	}
	p := Preview{App: "web", Ref: "refs/pull/1/head", Commit: "c", Plan: &model.Summary{}, Diff: &diff.Report{App: "web", Steps: []diff.Step{{Role: "default", Objects: objs}}}}
	files, err := p.Files("pull-1-head")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if len(data) > 3*PreviewDiffBytes/2 {
			t.Errorf("%s is %d bytes, want about %d at most", name, len(data), PreviewDiffBytes)
		}
		if !strings.Contains(string(data), "more bytes of this diff left out") {
			t.Errorf("%s says nothing of what was left out", name)
		}
	}
	if p.Diff.Steps[0].Objects[0].Diff != big {
		t.Error("Files cut the caller's report")
	}
	first := files[PreviewPath("web", "pull-1-head", ".md")]
	if !strings.Contains(string(first), "c0") || !strings.Contains(string(first), "c199") {
		t.Error("the markdown does not name every object")
	}
}

// TestSecretSize counts a Secret's value bytes: data decoded, stringData
// as written.
func TestSecretSize(t *testing.T) {
	o := map[string]any{"data": map[string]any{"a": "aHVudGVyMg==", "b": "YWJj"}, "stringData": map[string]any{"c": "xyz!"}}
	if got := SecretSize(o); got != 7+3+4 {
		t.Errorf("SecretSize = %d, want 14", got)
	}
}
