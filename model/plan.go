package model

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/render/order"
	"github.com/roleout/roleout/render/revision"
)

// DefaultRole holds the objects no role claims.
const DefaultRole = "default"

// UnorderedPolicy says where roles without an upgradeOrder go.
type UnorderedPolicy string

// The two UnorderedPolicy values.
const (
	// UnorderedFirst counts an unset upgradeOrder as 0 (the default).
	UnorderedFirst UnorderedPolicy = "First"
	// UnorderedLast puts roles without an upgradeOrder after all ordered
	// ones, in one wave.
	UnorderedLast UnorderedPolicy = "Last"
)

// Role is a named group of rendered objects applied together.
type Role struct {
	Name string
	// UpgradeOrder is the role's effective order (0 when unset in First
	// mode). Ordered says whether it was set.
	UpgradeOrder int
	Ordered      bool
	Objects      []*unstructured.Unstructured
	// Hash is the role's template hash (render/revision.TemplateHash).
	Hash string
	// Decision says whether the role is unchanged, rolled back or
	// updated, and which revision it is at afterwards.
	Decision revision.Decision
	// History is the role's revision history including Decision.
	History []revision.RoleRevision
	// Workloads are the role's workloads with their predicted identities.
	Workloads []Workload
}

// Changed reports whether the role must be applied.
func (r *Role) Changed() bool { return r.Decision.Action != revision.Unchanged }

// Wave is the roles that share one upgradeOrder, applied together and
// waited on before the next wave.
type Wave struct {
	// UpgradeOrder is the roles' order; for the unordered roles of Last
	// mode it is one past the highest ordered value.
	UpgradeOrder int
	Roles        []*Role
}

// Plan is an app's rendered objects in apply order: prerequisites, then
// waves.
type Plan struct {
	// Prerequisites are the cluster-wide objects applied before the first
	// wave, whatever their role.
	Prerequisites []*unstructured.Unstructured
	// PrerequisitesHash is the template hash of Prerequisites.
	PrerequisitesHash string
	Waves             []Wave
	// Prune lists the objects of the previous inventory that the render
	// no longer has, in deletion order: later waves first, prerequisites
	// last.
	Prune []InventoryEntry
	// Masker is the masker the plan's records and hashes were made with
	// (PlanOptions.Masker): diffs of the plan mask Secrets with it.
	Masker *secrets.Masker
	// Unchecked are the objects of kinds roleout has no schema for (a
	// custom kind whose CRD is in neither the render, PlanOptions.CRDs
	// nor roleout): NewPlan could not check that the API server takes
	// them.
	Unchecked []object.Ref
	// Late are the needs between the plan's objects that a later wave
	// meets (rule 9): a workload before the ServiceAccount it runs as, a
	// webhook before the pods it calls. The plan stands; they are
	// warnings.
	Late []order.Late
	// Upgrade, when the plan was made for other versions than the
	// cluster runs (roleout plan --kubernetes-version, --controller),
	// is what that upgrade would roll; nil otherwise.
	Upgrade *Upgrade
}

// Roles returns every role of the plan in apply order.
func (p *Plan) Roles() []*Role {
	var out []*Role
	for _, w := range p.Waves {
		out = append(out, w.Roles...)
	}
	return out
}

// Role returns the role named name, or nil.
func (p *Plan) Role(name string) *Role {
	for _, r := range p.Roles() {
		if r.Name == name {
			return r
		}
	}
	return nil
}
