package agent

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/forge"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/notify"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/statusstore"
)

// Fetcher polls the source: it returns the followed ref's commit checked
// out on disk, fetching only when the commit is new.
type Fetcher interface {
	Fetch(ctx context.Context) (sources.Snapshot, error)
	// Head lists the remote's refs and returns the commit the followed
	// ref points at now, fetching nothing.
	Head(ctx context.Context) (sources.SourceRevision, error)
	// IsAncestor reports whether older is an ancestor of newer: false
	// is a force-push of the followed branch, which the status records.
	IsAncestor(ctx context.Context, older, newer sources.SourceRevision) (bool, error)
}

// Renderer renders one app's overlay from a snapshot into objects, with
// the app's namespace set on namespaced objects that name none.
type Renderer interface {
	Render(ctx context.Context, snap sources.Snapshot, app config.App) ([]*unstructured.Unstructured, error)
}

// Planner groups an app's rendered objects into roles and waves and
// decides each role's revision against its history, with what was
// gathered of the cluster (render/plan.New).
type Planner interface {
	Plan(objs []*unstructured.Unstructured, opts plan.Options, facts plan.Facts) (*model.Plan, error)
}

// ClusterReader is what plans, previews and diffs read of an app's
// cluster: they never write to it, so a preview's identity is one
// (Deps.PreviewClusterFor).
type ClusterReader interface {
	// ObserveAll reads the identity each workload's controller gave its
	// template; apply.ErrNotObserved for one whose controller lags.
	ObserveAll(ctx context.Context, objs []*unstructured.Unstructured) map[object.Ref]apply.ObserveResult
	// CollisionCounts reads the workloads' live status.collisionCount
	// (absent when there is none).
	CollisionCounts(ctx context.Context, objs []*unstructured.Unstructured) map[object.Ref]*int32
	// Diff dry-runs objs and compares them with the live objects.
	Diff(ctx context.Context, objs []*unstructured.Unstructured, opts apply.DiffOptions) ([]model.ObjectDiff, error)
	// Live reads an object, nil when it does not exist.
	Live(ctx context.Context, ref object.Ref) (*unstructured.Unstructured, error)
	// CRDFor reads the CRD that serves an object's kind, nil for a
	// built-in or missing kind.
	CRDFor(ctx context.Context, o *unstructured.Unstructured) (*unstructured.Unstructured, error)
	// ClusterVersions reads the versions the cluster runs of Kubernetes
	// and of the controllers given, cached per cluster; a version it
	// cannot read is empty, and predictions then say they assume one.
	ClusterVersions(ctx context.Context, controllers []object.ControllerDeployment) object.ClusterVersions
	// Scopes reads from discovery whether each kind is namespaced (true)
	// or cluster-scoped (false); a kind the cluster does not serve is
	// absent.
	Scopes(ctx context.Context, kinds []schema.GroupKind) (map[schema.GroupKind]bool, error)
}

// Cluster is an app's cluster as a rollout drives it: it reads, writes
// objects in waves, waits for them to be healthy, prunes and records
// Events. The agent's own cluster is one too (Deps.Cluster), and holds
// the role revisions of every app.
type Cluster interface {
	ClusterReader
	Apply(ctx context.Context, objs []*unstructured.Unstructured, opts apply.ApplyOptions) ([]apply.Result, error)
	WaitHealthy(ctx context.Context, objs []*unstructured.Unstructured, opts apply.WaitOptions) error
	// ResetMapper forgets discovered kinds after CRDs were installed.
	ResetMapper()
	// CheckOwners refuses, before anything is written, objects that
	// exist and are not the owner's to write (apply.OwnershipError).
	CheckOwners(ctx context.Context, objs []*unstructured.Unstructured, own apply.Ownership) error
	// Prune deletes objects in the given order, only those carrying the
	// owner label and not protected.
	Prune(ctx context.Context, refs []object.Ref, opts apply.PruneOptions) ([]apply.Result, error)
	// Event records a Normal event on an object.
	Event(ctx context.Context, ref object.Ref, reason, message string) error
	// Watch streams the metadata of refs (objects carrying selector)
	// to handle until stop is called or ctx ends: roleout run's drift
	// detection.
	Watch(ctx context.Context, refs []object.Ref, selector string, handle func(apply.WatchEvent)) (stop func(), err error)
	// As returns the cluster as user (impersonated), to read only:
	// previews read as their identity (source.pullRequests.serviceAccount).
	As(user string) (ClusterReader, error)
}

// ApplierCluster is the Cluster of an apply.Applier, the one roleout
// runs with.
type ApplierCluster struct{ *apply.Applier }

// As returns the applier impersonating user.
func (c ApplierCluster) As(user string) (ClusterReader, error) {
	ap, err := c.Applier.As(user)
	if err != nil {
		return nil, err
	}
	return ap, nil
}

// newApplierCluster returns the Cluster of apply.New(cfg, opts).
func newApplierCluster(cfg *rest.Config, opts apply.Options) (Cluster, error) {
	ap, err := apply.New(cfg, opts)
	if err != nil {
		return nil, err
	}
	return ApplierCluster{ap}, nil
}

// StatusReader reads the status branch.
type StatusReader interface {
	// Read returns every file under dir, by path (none is an empty map),
	// but those under dir's folders named in skip, from the newest commit
	// it trusts, and whether it refused the head.
	Read(ctx context.Context, dir string, skip ...string) (status.Read, error)
}

// StatusWriter commits files (nil content deletes) to the status branch
// and pushes; statusstore.ErrNoChange means there was nothing to commit.
type StatusWriter interface {
	Commit(ctx context.Context, files map[string][]byte, msg string) (string, error)
}

// StatusStore is the status branch, read and written.
type StatusStore interface {
	StatusReader
	StatusWriter
}

// Reporter tells reviewers and operators what the agent did: the forge
// (a status per app on each previewed head and each commit rolled out, a
// comment per pull request) and notifications. Its calls return at once:
// it posts on its own time, with its own retries, and nothing it does
// blocks or fails a rollout.
type Reporter interface {
	// Previewed says that the previews of pull-request ref at head were
	// written to the status branch.
	Previewed(ref, head string)
	// Recorded says that app's status st (at source commit commit) was
	// written, or, with phase Progressing, that a rollout starts; cluster
	// names the app's own cluster, "" for the agent's.
	Recorded(app, cluster, commit string, st *status.App)
	// Flushed returns a channel closed once everything reported is
	// posted, or dropped (roleout run --once waits for it, a while).
	Flushed() <-chan struct{}
}

// Compile-time checks that the real implementations fit.
var (
	_ Fetcher     = (*sources.GitSource)(nil)
	_ StatusStore = (*statusstore.Branch)(nil)
	_ Cluster     = ApplierCluster{}
	_ Renderer    = (*kustomizeRenderer)(nil)
	_ Planner     = rolePlanner{}
	_ Reporter    = (*forge.Poster)(nil)
	_ Reporter    = (*notify.Notifier)(nil)
)
