package render

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/render/order"
	"github.com/roleout/roleout/render/predict"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/render/schema"
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

// PlanOptions configures NewPlan: the app's role config and what the
// previous status recorded.
type PlanOptions struct {
	// App names the app; role revisions are named <app>-<role>-<hash>.
	App            string
	Roles          []RoleSpec
	UnorderedRoles UnorderedPolicy
	// History holds each role's recorded revisions.
	History map[string][]revision.RoleRevision
	// Inventory is what the app applied last; objects in it that the
	// render no longer has form the prune set.
	Inventory []InventoryEntry
	// Source is the source revision being planned (main@sha1:…).
	Source string
	// CollisionCounts are the workloads' live status.collisionCount
	// values, when a cluster was reachable; predictions use none (or 0)
	// otherwise.
	CollisionCounts map[object.Ref]*int32
	// CRDs are CustomResourceDefinitions the cluster has. They give
	// custom workloads' schema defaults to predictions, unless the render
	// has the CRD (it wins: the prerequisite step applies it first);
	// without either, the CRDs built into roleout do
	// (schema.BuiltinCRDs).
	CRDs []*unstructured.Unstructured
	// Versions are the Kubernetes and controller versions the cluster
	// runs, when known: predictions of code at another version than
	// roleout models are unverified (predict.SkewFor).
	Versions object.ClusterVersions
	// Masker masks Secret values in role revisions and keys them in
	// template hashes (internal/secrets). Nil: a random key for this plan
	// only, so its Secrets' hashes and masks match no other plan's.
	Masker *secrets.Masker
}

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

// NewPlan checks objs as the API server would, groups them into roles
// and orders the roles into waves. It is pure; the rules are in the
// package documentation. When the API server would refuse an object, it
// returns an *InvalidObjectsError and no plan. Objects that carry
// internal annotations (SourcePathAnnotation, RestoredRoleAnnotation) are
// planned as copies without them; objs is not changed.
func NewPlan(objs []*unstructured.Unstructured, opts PlanOptions) (*Plan, error) {
	if opts.Masker == nil {
		opts.Masker = secrets.Ephemeral()
	}
	p := &Plan{Masker: opts.Masker}
	objs, marks := takeMarks(objs)
	var rest []*unstructured.Unstructured
	for _, o := range objs {
		if IsPrerequisite(o) {
			p.Prerequisites = append(p.Prerequisites, o)
		} else {
			rest = append(rest, o)
		}
	}
	schemas := predict.Options{Sources: schema.Sources{CRDs: opts.CRDs}, Cluster: opts.Versions}
	for _, o := range p.Prerequisites {
		if o.GetKind() == "CustomResourceDefinition" {
			schemas.RenderCRDs = append(schemas.RenderCRDs, o)
		}
	}
	var err error
	if p.Unchecked, err = checkObjects(objs, schemas.Sources); err != nil {
		return nil, err
	}
	roles, err := groupRoles(rest, opts.App, opts.Roles, marks)
	if err != nil {
		return nil, err
	}
	if err := orderRoles(roles, opts.Roles); err != nil {
		return nil, err
	}
	if p.PrerequisitesHash, err = revision.TemplateHash(p.Prerequisites, opts.Masker); err != nil {
		return nil, err
	}
	for _, r := range roles {
		if r.Hash, err = revision.TemplateHash(r.Objects, opts.Masker); err != nil {
			return nil, fmt.Errorf("role %s: %w", r.Name, err)
		}
		r.Decision, r.History, err = revision.Decide(opts.App, r.Name, r.Objects, opts.History[r.Name], opts.Source, opts.Masker)
		if err != nil {
			return nil, fmt.Errorf("role %s: %w", r.Name, err)
		}
		if r.Workloads, err = predictWorkloads(r, opts.CollisionCounts, schemas); err != nil {
			return nil, fmt.Errorf("role %s: %w", r.Name, err)
		}
	}
	p.Waves = waves(roles, opts.UnorderedRoles)
	p.Late = p.late(objs)
	p.Prune = pruneSet(opts.Inventory, objs)
	return p, nil
}

// prerequisiteKinds are the cluster-wide kinds applied before any wave.
var prerequisiteKinds = map[string]string{
	"CustomResourceDefinition": "apiextensions.k8s.io",
	"Namespace":                "",
	"PriorityClass":            "scheduling.k8s.io",
	"StorageClass":             "storage.k8s.io",
	"ClusterRole":              "rbac.authorization.k8s.io",
	"ClusterRoleBinding":       "rbac.authorization.k8s.io",
}

// IsPrerequisite reports whether o goes in the prerequisite step.
func IsPrerequisite(o *unstructured.Unstructured) bool {
	group, ok := prerequisiteKinds[o.GetKind()]
	return ok && o.GroupVersionKind().Group == group
}

// orderRoles sets each role's upgradeOrder from the config or its
// objects' annotations, and fails when they disagree.
func orderRoles(roles []*Role, specs []RoleSpec) error {
	config := map[string]*int{}
	for _, s := range specs {
		config[s.Name] = s.UpgradeOrder
	}
	var errs []error
	for _, r := range roles {
		set, from := config[r.Name], "the app config"
		if set != nil {
			r.UpgradeOrder, r.Ordered = *set, true
		}
		for _, o := range r.Objects {
			v, ok := o.GetAnnotations()[object.UpgradeOrderAnnotation]
			if !ok {
				continue
			}
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				errs = append(errs, fmt.Errorf("%s: annotation %s=%q must be a whole number, 0 or more", Describe(o), object.UpgradeOrderAnnotation, v))
				continue
			}
			if r.Ordered && n != r.UpgradeOrder {
				errs = append(errs, fmt.Errorf("role %s: %s has %s=%d but %s sets %d: give the role one upgradeOrder",
					r.Name, Describe(o), object.UpgradeOrderAnnotation, n, from, r.UpgradeOrder))
				continue
			}
			if !r.Ordered {
				r.UpgradeOrder, r.Ordered, from = n, true, Describe(o)
			}
		}
	}
	return errors.Join(errs...)
}

// waves sorts roles by upgradeOrder, keeping declaration order among
// equals, and cuts them into waves.
func waves(roles []*Role, policy UnorderedPolicy) []Wave {
	last := 0
	for _, r := range roles {
		if r.Ordered && r.UpgradeOrder >= last {
			last = r.UpgradeOrder + 1
		}
	}
	if policy == UnorderedLast {
		for _, r := range roles {
			if !r.Ordered {
				r.UpgradeOrder = last
			}
		}
	}
	sort.SliceStable(roles, func(i, j int) bool { return roles[i].UpgradeOrder < roles[j].UpgradeOrder })
	var out []Wave
	for _, r := range roles {
		if n := len(out); n > 0 && out[n-1].UpgradeOrder == r.UpgradeOrder {
			out[n-1].Roles = append(out[n-1].Roles, r)
			continue
		}
		out = append(out, Wave{UpgradeOrder: r.UpgradeOrder, Roles: []*Role{r}})
	}
	return out
}

// late returns the needs among objs that a later wave of p meets.
func (p *Plan) late(objs []*unstructured.Unstructured) []order.Late {
	places := map[object.Ref]order.Place{}
	for _, o := range p.Prerequisites {
		places[object.RefOf(o)] = order.Place{}
	}
	for i, w := range p.Waves {
		for _, r := range w.Roles {
			for _, o := range r.Objects {
				places[object.RefOf(o)] = order.Place{Wave: i + 1, Role: r.Name}
			}
		}
	}
	return order.Check(order.Needs(objs), func(r object.Ref) (order.Place, bool) {
		pl, ok := places[r]
		return pl, ok
	})
}
