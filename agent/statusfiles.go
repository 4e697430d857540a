package agent

import (
	"path"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/revision"
)

// statusFiles returns the app's files for the status commit: status.yaml,
// inventory.yaml and every role revision, with revisions dropped by
// truncation deleted (nil content). History is truncated to the app's
// revisionHistoryLimit only after a rollout that succeeded; the inventory
// after a failed one keeps everything the app may have applied. progress
// (a checkpoint between waves) adds no history record: the rollout's
// comes at its end. r is nil when nothing was planned.
func statusFiles(app config.App, st *AppStatus, r *rollout, prev *previous, succeeded, progress bool) (map[string][]byte, error) {
	files := map[string][]byte{}
	data, err := st.encode()
	if err != nil {
		return nil, err
	}
	files[statusPath(app.Name)] = data
	records, err := readHistory(prev.files, app.Name)
	if err != nil {
		return nil, err
	}
	if !progress {
		if data, ok, err := r.historyFile(app.Name, records, st); err != nil {
			return nil, err
		} else if ok {
			files[historyPath(app.Name)] = data
		}
	}
	if r == nil {
		return files, nil
	}
	inv := r.plan.Inventory()
	if !succeeded {
		inv = mergeInventory(prev.inventory, inv)
	}
	if files[inventoryPath(app.Name)], err = yaml.Marshal(inv); err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, role := range r.plan.Roles() {
		hist := role.History
		if succeeded {
			hist = revision.Truncate(hist, *app.RevisionHistoryLimit, role.Decision.Revision.Name)
		}
		for _, rev := range hist {
			cr, err := rev.ControllerRevision(app.Name, role.Name, "")
			if err != nil {
				return nil, err
			}
			p, err := revisionPath(app.Name, role.Name, rev.Name)
			if err != nil {
				return nil, err
			}
			if files[p], err = yaml.Marshal(cr); err != nil {
				return nil, err
			}
			keep[p] = true
		}
	}
	// Delete truncated revisions of the planned roles; a role that left
	// the render keeps its history.
	planned := map[string]bool{}
	for _, role := range r.plan.Roles() {
		planned[role.Name] = true
	}
	for p := range prev.files {
		dir, ok := strings.CutPrefix(path.Dir(p), path.Join(app.Name, "revisions")+"/")
		if ok && planned[dir] && !keep[p] {
			files[p] = nil
		}
	}
	dropUntrustedPreviews(files, prev.files, app.Name)
	return files, nil
}

// dropUntrustedPreviews deletes the previews of refused heads of the
// followed ref: a trusted revision is being reconciled, so they are
// obsolete.
func dropUntrustedPreviews(files, prevFiles map[string][]byte, app string) {
	dir := path.Join(app, "previews") + "/"
	for p := range prevFiles {
		name, ok := strings.CutSuffix(strings.TrimPrefix(p, dir), ".json")
		if !strings.HasPrefix(p, dir) || !ok {
			continue
		}
		if pv, ok := readPreview(prevFiles, app, name); ok && pv.Untrusted != "" {
			files[previewPath(app, name, ".json")] = nil
			files[previewPath(app, name, ".md")] = nil
		}
	}
}

// mergeInventory returns a followed by the entries of b it lacks.
func mergeInventory(a, b []render.InventoryEntry) []render.InventoryEntry {
	seen := map[object.Ref]bool{}
	out := append([]render.InventoryEntry(nil), a...)
	for _, e := range a {
		seen[e.Ref] = true
	}
	for _, e := range b {
		if !seen[e.Ref] {
			out = append(out, e)
		}
	}
	return out
}
