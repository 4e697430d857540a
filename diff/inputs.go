package diff

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// Reader is what a diff reads of a cluster; it never writes.
type Reader interface {
	// Diff dry-runs objs and compares them with the live objects.
	Diff(ctx context.Context, objs []*unstructured.Unstructured, opts apply.DiffOptions) ([]model.ObjectDiff, error)
	// Live reads an object, nil when it does not exist.
	Live(ctx context.Context, ref object.Ref) (*unstructured.Unstructured, error)
	// ObserveAll reads the identity each workload's controller gave its
	// template.
	ObserveAll(ctx context.Context, objs []*unstructured.Unstructured) map[object.Ref]apply.ObserveResult
}

// Target is the app a diff is for, as a rollout of it would write.
type Target struct {
	// App names the app.
	App string
	// Apply are the options its rollout applies with (field manager,
	// labels, force); the dry run uses them.
	Apply apply.ApplyOptions
	// Prune, set when the app prunes, are the options of its prune: the
	// diff lists what it would delete.
	Prune *apply.PruneOptions
}

// Recorded is what the last status in git says an app applied: the
// roles, each with the objects of the role revision it records as
// applied, the prerequisite step's hash and the inventory.
type Recorded struct {
	// Roles are the roles the status records, in its order.
	Roles []RecordedRole
	// PrerequisitesHash is the hash of the prerequisite step the status
	// records as applied; "" when it records none.
	PrerequisitesHash string
	// Inventory is what the app applied, for pruning.
	Inventory []model.InventoryEntry
}

// RecordedRole is one role of a Recorded status.
type RecordedRole struct {
	Name         string
	UpgradeOrder int
	// Objects are the objects of the revision the status says the role
	// has applied (as rendered, before roleout's labels, Secret values
	// masked); none when its history lacks that revision.
	Objects []map[string]any
}

// role returns the recorded role name, or nil.
func (r *Recorded) role(name string) *RecordedRole {
	if r == nil {
		return nil
	}
	for i := range r.Roles {
		if r.Roles[i].Name == name {
			return &r.Roles[i]
		}
	}
	return nil
}

// objects returns, by key, the objects recorded for role; none for a
// role the status does not have.
func (r *Recorded) objects(role string) map[string]map[string]any {
	out := map[string]map[string]any{}
	if rr := r.role(role); rr != nil {
		for _, m := range rr.Objects {
			out[key(m)] = m
		}
	}
	return out
}

// key identifies the object m across API versions (object.Ref.Key:
// group, kind, namespace, name).
func key(m map[string]any) string {
	return object.RefOf(&unstructured.Unstructured{Object: m}).Key()
}
