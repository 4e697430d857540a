package status

import (
	"context"
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/revision"
)

// Records are what the status branch holds of an app, as far as its
// reader trusts it.
type Records struct {
	// App names the app.
	App string
	// Status is its status.yaml; nil when it has none (never
	// reconciled).
	Status *App
	// History holds each role's revisions, oldest first.
	History map[string][]revision.RoleRevision
	// Inventory is what the app applied.
	Inventory []model.InventoryEntry
	// Files are the app's files as read, to tell which to delete.
	Files map[string][]byte
	// Refused is set when the status branch head was refused and the
	// records come from an older commit, or from none.
	Refused *BranchCondition
}

// Reader reads the status branch: every file under dir, by path (none is
// an empty map), from the newest commit it trusts, and whether it
// refused the head.
type Reader interface {
	// Read returns the files under dir but those under its folders
	// named in skip.
	Read(ctx context.Context, dir string, skip ...string) (Read, error)
}

// Load reads and parses app's records (Parse) through r. Its previews
// are not read: they are the pull requests', as many as are open, and
// none of them is a record (PreviewsFolder).
func Load(ctx context.Context, r Reader, app string) (*Records, error) {
	read, err := r.Read(ctx, app, PreviewsFolder)
	if err != nil {
		return nil, err
	}
	return Parse(read, app)
}

// Parse reads app's status, inventory and role revisions out of read, a
// read of the status branch under the app's folder. A file that does not
// parse is an error that names it and says how to fix it; nothing is
// applied until it is fixed.
func Parse(read Read, app string) (*Records, error) {
	if read.Err != nil {
		return nil, read.Err
	}
	files := read.Files
	if files == nil {
		files = map[string][]byte{}
	}
	r := &Records{App: app, History: map[string][]revision.RoleRevision{}, Files: files, Refused: Condition(read)}
	var err error
	if data, ok := files[StatusPath(app)]; ok {
		if r.Status, err = ParseApp(data, StatusPath(app)); err != nil {
			return nil, err
		}
	}
	if data, ok := files[InventoryPath(app)]; ok {
		if err := yaml.UnmarshalStrict(data, &r.Inventory); err != nil {
			return nil, fmt.Errorf("status branch file %s is not a valid inventory: %w (fix or delete it on the status branch)", InventoryPath(app), err)
		}
	}
	prefix := revisionsDir(app)
	for name, data := range files {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		role, rev, err := parseRevision(app, strings.TrimPrefix(name, prefix), name, data)
		if err != nil {
			return nil, err
		}
		r.History[role] = append(r.History[role], rev)
	}
	for _, h := range r.History {
		sort.Slice(h, func(i, j int) bool { return h[i].Number < h[j].Number })
	}
	return r, nil
}

// parseRevision reads the role revision in file name (rel, below the
// app's revisions folder): a ControllerRevision that must sit where
// RevisionPath puts it.
func parseRevision(app, rel, name string, data []byte) (string, revision.RoleRevision, error) {
	var cr appsv1.ControllerRevision
	if err := yaml.UnmarshalStrict(data, &cr); err != nil {
		return "", revision.RoleRevision{}, fmt.Errorf("status branch file %s is not a valid ControllerRevision: %w (fix or delete it on the status branch)", name, err)
	}
	rev, err := revision.FromControllerRevision(&cr)
	if err != nil {
		return "", revision.RoleRevision{}, fmt.Errorf("status branch file %s: %w", name, err)
	}
	role, _, _ := strings.Cut(rel, "/")
	want, err := RevisionPath(app, role, rev.Name)
	if err != nil {
		return "", revision.RoleRevision{}, fmt.Errorf("status branch file %s: %w (fix or delete it on the status branch)", name, err)
	}
	if want != name {
		return "", revision.RoleRevision{}, fmt.Errorf("status branch file %s holds revision %s, whose file is %s (fix or delete it on the status branch)", name, rev.Name, want)
	}
	return role, rev, nil
}

// Rollouts returns the rollout records of history.yaml.
func (r *Records) Rollouts() ([]Rollout, error) { return ReadHistory(r.Files, r.App) }

// Recorded is what the records say the app applied, as a diff compares
// with it: each role of the status with the objects of the revision it
// records as applied, the prerequisite step's hash and the inventory.
func (r *Records) Recorded() *diff.Recorded {
	rec := &diff.Recorded{Inventory: r.Inventory}
	if r.Status == nil {
		return rec
	}
	if p := r.Status.Prerequisites; p != nil {
		rec.PrerequisitesHash = p.Hash
	}
	for _, st := range r.Status.Roles {
		rr := diff.RecordedRole{Name: st.Name, UpgradeOrder: st.UpgradeOrder}
		for _, h := range r.History[st.Name] {
			if h.Name == st.RevisionName {
				rr.Objects = h.Objects
			}
		}
		rec.Roles = append(rec.Roles, rr)
	}
	return rec
}
