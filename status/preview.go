package status

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/model"
)

// Preview is what merging a pull-request head would do to an app:
// <app>/previews/<name>.json on the status branch (the .md next to it,
// Markdown, is for people).
type Preview struct {
	App    string         `json:"app"`
	Ref    string         `json:"ref"`
	Commit string         `json:"commit"`
	Plan   *model.Summary `json:"plan,omitempty"`
	Diff   *diff.Report   `json:"diff,omitempty"`
	// Error says why there is no plan or diff (a broken render, say).
	Error string `json:"error,omitempty"`
	// Untrusted says why the head, the followed branch's newest commit,
	// is not applied: its signature was refused.
	Untrusted string `json:"untrusted,omitempty"`
	// SecretBytes are, by Secret ("Secret/ns/name"), how many bytes its
	// values hold as the head renders them: what a comment shows of a
	// Secret besides the keys that change, never a value.
	SecretBytes map[string]int `json:"secretBytes,omitempty"`
}

// SecretSize is how many bytes the values of Secret o hold: its data
// (base64, decoded) and stringData.
func SecretSize(o map[string]any) int {
	n := 0
	if data, ok := o["data"].(map[string]any); ok {
		for _, v := range data {
			if s, ok := v.(string); ok {
				n += base64.StdEncoding.DecodedLen(len(s)) - strings.Count(s, "=")
			}
		}
	}
	if data, ok := o["stringData"].(map[string]any); ok {
		for _, v := range data {
			if s, ok := v.(string); ok {
				n += len(s)
			}
		}
	}
	return n
}

// ReadPreview returns the preview name of app among files, an app's
// files as read from the status branch; false when there is none or it
// does not parse.
func ReadPreview(files map[string][]byte, app, name string) (Preview, bool) {
	data, ok := files[PreviewPath(app, name, ".json")]
	if !ok {
		return Preview{}, false
	}
	var p Preview
	if json.Unmarshal(data, &p) != nil {
		return Preview{}, false
	}
	p.bound() // the branch is untrusted: its diffs are held to what the agent writes
	return p, true
}

// The bounds of a preview's diffs (docs/design.md, "Every untrusted input
// has a size"): a pull request of a few bytes can change many objects, and
// its preview is committed to the status branch.
const (
	// PreviewObjectDiffBytes bounds one object's diff.
	PreviewObjectDiffBytes = 64 << 10
	// PreviewDiffBytes bounds the diffs of one preview, all objects.
	PreviewDiffBytes = 1 << 20
)

// bound truncates each object's diff to PreviewObjectDiffBytes and drops
// the diffs past PreviewDiffBytes in all, each with a marker that says
// what was left out and where to see it whole: roleout diff.
func (p *Preview) bound() {
	if p.Diff == nil {
		return
	}
	total := 0
	for i := range p.Diff.Steps {
		objs := p.Diff.Steps[i].Objects
		for j := range objs {
			d := objs[j].Diff
			if d == "" {
				continue
			}
			room := min(PreviewObjectDiffBytes, PreviewDiffBytes-total)
			if len(d) > room {
				cut := strings.LastIndexByte(d[:max(room, 0)], '\n') + 1
				d = d[:cut] + fmt.Sprintf("... %d more bytes of this diff left out (a preview holds %d KiB per object, %d KiB in all): run roleout diff to see all of it\n",
					len(d)-cut, PreviewObjectDiffBytes>>10, PreviewDiffBytes>>10)
				objs[j].Diff = d
			}
			total += len(d)
		}
	}
}

// Files returns the files of p, named name: its JSON and its Markdown,
// its diffs bounded (PreviewObjectDiffBytes, PreviewDiffBytes).
func (p Preview) Files(name string) (map[string][]byte, error) {
	if p.Diff != nil {
		d := *p.Diff // the caller's report stays whole
		d.Steps = make([]diff.Step, len(p.Diff.Steps))
		for i, s := range p.Diff.Steps {
			s.Objects = slices.Clone(s.Objects)
			d.Steps[i] = s
		}
		p.Diff = &d
		p.bound()
	}
	js, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		PreviewPath(p.App, name, ".json"): append(js, '\n'),
		PreviewPath(p.App, name, ".md"):   []byte(p.Markdown()),
	}, nil
}
