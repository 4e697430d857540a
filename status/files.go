package status

import (
	"path"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/revision"
)

// Update is one status commit of an app: its new status, the rollout to
// record and, when a plan was made, what the plan applies.
type Update struct {
	// Status is the new status.yaml.
	Status *App
	// Rollout, when set, is added to history.yaml (AppendRollout).
	Rollout *Rollout
	// Planned is what the plan of this commit holds; nil when nothing was
	// planned (a render that failed), which keeps the inventory and every
	// revision as they are.
	Planned *Planned
}

// Planned is what a plan holds, for the status branch.
type Planned struct {
	// Inventory is the plan's inventory.
	Inventory []model.InventoryEntry
	// MergeInventory keeps the entries of the previous inventory that
	// Inventory lacks: after a rollout that did not succeed, the app may
	// have applied either, and everything it may have applied stays
	// prunable.
	MergeInventory bool
	// Revisions are, for every planned role, the revisions to keep on
	// the branch; the role's others are deleted. A role that left the
	// plan keeps its history.
	Revisions map[string][]revision.RoleRevision
}

// Files returns the files of the commit of u against prev, what the
// branch holds of app: status.yaml, history.yaml when a rollout is
// recorded, inventory.yaml and every planned role's revisions, with the
// revisions dropped deleted (nil content). The previews of refused heads
// of the followed ref are deleted when a plan was made: a trusted
// revision is being reconciled, so they are obsolete.
func (u Update) Files(app string, prev *Records) (map[string][]byte, error) {
	files := map[string][]byte{}
	data, err := u.Status.Encode()
	if err != nil {
		return nil, err
	}
	files[StatusPath(app)] = data
	if u.Rollout != nil {
		old, err := ReadHistory(prev.Files, app)
		if err != nil {
			return nil, err
		}
		if records, ok := AppendRollout(old, *u.Rollout); ok {
			if files[HistoryPath(app)], err = yaml.Marshal(records); err != nil {
				return nil, err
			}
		}
	}
	p := u.Planned
	if p == nil {
		return files, nil
	}
	inv := p.Inventory
	if p.MergeInventory {
		inv = MergeInventory(prev.Inventory, inv)
	}
	if files[InventoryPath(app)], err = yaml.Marshal(inv); err != nil {
		return nil, err
	}
	if err := p.revisionFiles(app, prev, files); err != nil {
		return nil, err
	}
	return files, nil
}

// revisionFiles adds the planned roles' revisions to files, and deletes
// those of the planned roles prev holds and p does not keep.
func (p *Planned) revisionFiles(app string, prev *Records, files map[string][]byte) error {
	keep := map[string]bool{}
	for role, hist := range p.Revisions {
		for _, rev := range hist {
			cr, err := rev.ControllerRevision(app, role, "")
			if err != nil {
				return err
			}
			file, err := RevisionPath(app, role, rev.Name)
			if err != nil {
				return err
			}
			if files[file], err = yaml.Marshal(cr); err != nil {
				return err
			}
			keep[file] = true
		}
	}
	for f := range prev.Files {
		role, ok := strings.CutPrefix(path.Dir(f), strings.TrimSuffix(revisionsDir(app), "/")+"/")
		if _, planned := p.Revisions[role]; ok && planned && !keep[f] {
			files[f] = nil
		}
	}
	return nil
}

// DropUntrustedPreviews adds to files the deletion of app's previews of
// refused heads of the followed ref, among previews (a read of the app's
// previews folder).
func DropUntrustedPreviews(files, previews map[string][]byte, app string) {
	prevFiles := previews
	dir := PreviewsDir(app) + "/"
	for p := range prevFiles {
		name, ok := strings.CutSuffix(strings.TrimPrefix(p, dir), ".json")
		if !strings.HasPrefix(p, dir) || !ok {
			continue
		}
		if pv, ok := ReadPreview(prevFiles, app, name); ok && pv.Untrusted != "" {
			files[PreviewPath(app, name, ".json")] = nil
			files[PreviewPath(app, name, ".md")] = nil
		}
	}
}

// MergeInventory returns a followed by the entries of b it lacks.
func MergeInventory(a, b []model.InventoryEntry) []model.InventoryEntry {
	seen := map[object.Ref]bool{}
	out := append([]model.InventoryEntry(nil), a...)
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
