package agent

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/sources"
)

// Fetcher polls the source: it returns the followed ref's commit checked
// out on disk, fetching only when the commit is new.
type Fetcher interface {
	Fetch(ctx context.Context) (sources.Snapshot, error)
	// Head lists the remote's refs and returns the commit the followed
	// ref points at now, fetching nothing.
	Head(ctx context.Context) (sources.SourceRevision, error)
}

// Renderer renders one app's overlay from a snapshot into objects, with
// the app's namespace set on namespaced objects that name none.
type Renderer interface {
	Render(ctx context.Context, snap sources.Snapshot, app config.App) ([]*unstructured.Unstructured, error)
}

// Planner groups an app's rendered objects into roles and waves and
// decides each role's revision against its history.
type Planner interface {
	Plan(objs []*unstructured.Unstructured, opts render.PlanOptions) (*render.Plan, error)
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
	Diff(ctx context.Context, objs []*unstructured.Unstructured, opts apply.DiffOptions) ([]apply.ObjectDiff, error)
	// Live reads an object, nil when it does not exist.
	Live(ctx context.Context, ref object.Ref) (*unstructured.Unstructured, error)
	// CRDFor reads the CRD that serves an object's kind, nil for a
	// built-in or missing kind.
	CRDFor(ctx context.Context, o *unstructured.Unstructured) (*unstructured.Unstructured, error)
}

// Cluster is an app's cluster as a rollout drives it: it reads, writes
// objects in waves, waits for them to be healthy, prunes and records
// Events. The agent's own cluster is one too (Deps.Cluster), and holds
// the role revisions of every app.
type Cluster interface {
	ClusterReader
	Apply(ctx context.Context, objs []*unstructured.Unstructured, opts apply.ApplyOptions) ([]apply.Result, error)
	WaitHealthy(ctx context.Context, objs []*unstructured.Unstructured, timeout time.Duration) error
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
}

// StatusReader reads the status branch.
type StatusReader interface {
	// Read returns every file under dir, by path (none is an empty map),
	// from the newest commit it trusts, and whether it refused the head.
	Read(ctx context.Context, dir string) (sources.StatusRead, error)
}

// StatusWriter commits files (nil content deletes) to the status branch
// and pushes; sources.ErrNoChange means there was nothing to commit.
type StatusWriter interface {
	Commit(ctx context.Context, files map[string][]byte, msg string) (string, error)
}

// StatusStore is the status branch, read and written.
type StatusStore interface {
	StatusReader
	StatusWriter
}

// Compile-time checks that the real implementations fit.
var (
	_ Fetcher     = (*sources.GitSource)(nil)
	_ StatusStore = (*sources.StatusBranch)(nil)
	_ Cluster     = (*apply.Applier)(nil)
	_ Renderer    = (*kustomizeRenderer)(nil)
	_ Planner     = rolePlanner{}
)

// builder is what kustomizeRenderer needs of render.Renderer.
type builder interface {
	Build(ctx context.Context, src render.Source, overlay string, opts render.Options) (render.Result, error)
}

// kustomizeRenderer is the Renderer of render.Renderer, with its cache.
type kustomizeRenderer struct{ b builder }

// Builds returns how many kustomize builds the renderer ran (render
// cache misses), for the benchmarks.
func (k *kustomizeRenderer) Builds() int {
	if r, ok := k.b.(*render.Renderer); ok {
		return r.Builds()
	}
	return 0
}

// newKustomizeRenderer returns a renderer with an empty render cache that
// runs up to processes renders at once (0: one per CPU).
func newKustomizeRenderer(processes int) *kustomizeRenderer {
	return &kustomizeRenderer{b: &render.Renderer{Processes: processes}}
}

// Render renders in the snapshot's trust domain (docs/design.md, "Safety
// and trust", Trust domains): only a snapshot marked sources.Trusted
// renders with what the app allows; any other (a pull-request head, an
// unmarked one) renders with exec, helm and remote fetches off, in a cache
// domain of its own.
func (k *kustomizeRenderer) Render(ctx context.Context, snap sources.Snapshot, app config.App) ([]*unstructured.Unstructured, error) {
	src, opts := renderRequest(snap, app)
	res, err := k.b.Build(ctx, src, app.Path, opts)
	if err != nil {
		if src.Domain != string(sources.Trusted) {
			return nil, &UntrustedRenderError{Err: err}
		}
		return nil, err
	}
	ns := app.Namespace
	if ns == "" {
		ns = "default"
	}
	return res.Objects, render.DefaultNamespace(res.Objects, ns)
}

// renderRequest returns what to render snap's overlay of app from and
// with which options: the app's own for a trusted snapshot, the untrusted
// ones (untrustedOptions) for any other.
func renderRequest(snap sources.Snapshot, app config.App) (render.Source, render.Options) {
	src := render.Source{Root: snap.Dir, Domain: string(sources.Untrusted)}
	if snap.Index != nil {
		src.Index = snap.Index
	}
	opts := app.Render.Options()
	opts.Origins = app.UsesPaths()
	if snap.Trust == sources.Trusted {
		src.Domain = string(sources.Trusted)
	} else {
		opts = untrustedOptions(opts)
	}
	return src, opts
}

// untrustedOptions returns o with exec functions, helm and remote fetches
// off, whatever the app allows; the limits stay.
func untrustedOptions(o render.Options) render.Options {
	o.EnableExec, o.EnableHelm, o.RemoteHosts = false, false, nil
	return o
}

// UntrustedRenderError is the error of a render in the untrusted domain (a
// pull-request preview): such renders never run exec functions or helm and
// never fetch remote bases, so an overlay that needs them fails there.
type UntrustedRenderError struct{ Err error }

func (e *UntrustedRenderError) Error() string {
	return "untrusted render (previews never run exec functions, helm or remote fetches, whatever the app allows): " + e.Err.Error()
}

func (e *UntrustedRenderError) Unwrap() error { return e.Err }

// rolePlanner is the Planner of render.NewPlan.
type rolePlanner struct{}

func (rolePlanner) Plan(objs []*unstructured.Unstructured, opts render.PlanOptions) (*render.Plan, error) {
	return render.NewPlan(objs, opts)
}
