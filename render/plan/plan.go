package plan

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/order"
	"github.com/roleout/roleout/render/predict"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/render/schema"
)

// Options configures New: the app's config and what the previous status
// recorded.
type Options struct {
	// App names the app; role revisions are named <app>-<role>-<hash>.
	App            string
	Roles          []model.RoleSpec
	UnorderedRoles model.UnorderedPolicy
	// Destinations, when set, are where the app's objects may go: a
	// render with any object outside them is refused whole
	// (CheckDestinations, with Facts.Scopes). Nil plans a local
	// directory, which no app config confines.
	Destinations *model.Destinations
	// AllowEmpty plans a render with no objects (the app's allowEmpty);
	// without it such a render is an error.
	AllowEmpty bool
	// History holds each role's recorded revisions.
	History map[string][]revision.RoleRevision
	// Inventory is what the app applied last; objects in it that the
	// render no longer has form the prune set.
	Inventory []model.InventoryEntry
	// Source is the source revision being planned (main@sha1:…).
	Source string
	// Masker masks Secret values in role revisions and keys them in
	// template hashes (internal/secrets). Nil: a random key for this plan
	// only, so its Secrets' hashes and masks match no other plan's.
	Masker *secrets.Masker
}

// Facts are what a plan knows of the cluster it is made for, gathered
// before New: New reads no cluster, so one plan's facts can serve two
// plans (a rollback's), and the zero Facts plan offline.
type Facts struct {
	// Scopes say whether each kind of the render is cluster-scoped
	// (KindScopes: the cluster's discovery, then Kubernetes' own kinds,
	// then the render's CRDs). Only Options.Destinations reads them.
	Scopes Scopes
	// CollisionCounts are the workloads' live status.collisionCount
	// values, when a cluster was reachable; predictions use none (or 0)
	// otherwise.
	CollisionCounts map[object.Ref]*int32
	// CRDs are CustomResourceDefinitions the cluster has (or that the
	// app's dependencies render). They give custom workloads' schema
	// defaults to predictions, unless the render has the CRD (it wins:
	// the prerequisite step applies it first); without either, the CRDs
	// built into roleout do (schema.BuiltinCRDs).
	CRDs []*unstructured.Unstructured
	// Versions are the Kubernetes and controller versions the cluster
	// runs, when known: predictions of code at another version than
	// roleout models are unverified (predict.SkewFor).
	Versions object.ClusterVersions
	// Minors, when set, predicts the built-in kinds for a cluster at
	// another Kubernetes minor than roleout links, with that minor's own
	// code (render/kubeminor); such predictions are verified.
	Minors predict.Minors
}

// RefusedError is a render refused as a whole before it is planned: an
// object outside the app's destinations. Nothing of it may be applied,
// and nothing pruned.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// ErrEmpty is a render with no objects, for an app that does not allow
// one (Options.AllowEmpty).
var ErrEmpty = errors.New("no objects (set allowEmpty: true if that is intended)")

// New checks objs against the app's destinations (a *RefusedError) and
// as the API server would, groups them into roles and orders the roles
// into waves, with what facts say of the cluster. It is pure; the rules
// are in the package documentation. When the API server would refuse an
// object, it returns an *InvalidObjectsError and no plan. Objects that
// carry internal annotations (object.SourcePathAnnotation,
// object.RestoredRoleAnnotation) are planned as copies without them;
// objs is not changed.
func New(objs []*unstructured.Unstructured, opts Options, facts Facts) (*model.Plan, error) {
	if opts.Destinations != nil {
		if err := CheckDestinations(objs, *opts.Destinations, facts.Scopes); err != nil {
			return nil, &RefusedError{Err: err}
		}
	}
	if len(objs) == 0 && !opts.AllowEmpty {
		return nil, ErrEmpty
	}
	if opts.Masker == nil {
		opts.Masker = secrets.Ephemeral()
	}
	p := &model.Plan{Masker: opts.Masker}
	objs, marks := takeMarks(objs)
	var rest []*unstructured.Unstructured
	for _, o := range objs {
		if IsPrerequisite(o) {
			p.Prerequisites = append(p.Prerequisites, o)
		} else {
			rest = append(rest, o)
		}
	}
	schemas := predict.Options{Sources: schema.Sources{CRDs: facts.CRDs}, Cluster: facts.Versions, Minors: facts.Minors}
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
		if r.Workloads, err = predictWorkloads(r, facts.CollisionCounts, schemas); err != nil {
			return nil, fmt.Errorf("role %s: %w", r.Name, err)
		}
	}
	p.Waves = waves(roles, opts.UnorderedRoles)
	p.Late = late(p, objs)
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
func orderRoles(roles []*model.Role, specs []model.RoleSpec) error {
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
func waves(roles []*model.Role, policy model.UnorderedPolicy) []model.Wave {
	last := 0
	for _, r := range roles {
		if r.Ordered && r.UpgradeOrder >= last {
			last = r.UpgradeOrder + 1
		}
	}
	if policy == model.UnorderedLast {
		for _, r := range roles {
			if !r.Ordered {
				r.UpgradeOrder = last
			}
		}
	}
	sort.SliceStable(roles, func(i, j int) bool { return roles[i].UpgradeOrder < roles[j].UpgradeOrder })
	var out []model.Wave
	for _, r := range roles {
		if n := len(out); n > 0 && out[n-1].UpgradeOrder == r.UpgradeOrder {
			out[n-1].Roles = append(out[n-1].Roles, r)
			continue
		}
		out = append(out, model.Wave{UpgradeOrder: r.UpgradeOrder, Roles: []*model.Role{r}})
	}
	return out
}

// late returns the needs among objs that a later wave of p meets.
func late(p *model.Plan, objs []*unstructured.Unstructured) []order.Late {
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
