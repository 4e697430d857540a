package status

import (
	"encoding/json"

	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/render"
)

// Preview is what merging a pull-request head would do to an app:
// <app>/previews/<name>.json on the status branch (the .md next to it,
// Markdown, is for people).
type Preview struct {
	App    string          `json:"app"`
	Ref    string          `json:"ref"`
	Commit string          `json:"commit"`
	Plan   *render.Summary `json:"plan,omitempty"`
	Diff   *diff.Report    `json:"diff,omitempty"`
	// Error says why there is no plan or diff (a broken render, say).
	Error string `json:"error,omitempty"`
	// Untrusted says why the head, the followed branch's newest commit,
	// is not applied: its signature was refused.
	Untrusted string `json:"untrusted,omitempty"`
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
	return p, json.Unmarshal(data, &p) == nil
}

// Files returns the files of p, named name: its JSON and its Markdown.
func (p Preview) Files(name string) (map[string][]byte, error) {
	js, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		PreviewPath(p.App, name, ".json"): append(js, '\n'),
		PreviewPath(p.App, name, ".md"):   []byte(p.Markdown()),
	}, nil
}
