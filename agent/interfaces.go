package agent

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/sources"
)

// Fetcher polls the source: it returns the followed ref's commit checked
// out on disk, fetching only when the commit is new.
type Fetcher interface {
	Fetch(ctx context.Context) (sources.Snapshot, error)
}

// Renderer renders one app's overlay from a checkout into objects, with
// the app's namespace set on namespaced objects that name none.
type Renderer interface {
	Render(ctx context.Context, root string, app AppConfig) ([]*unstructured.Unstructured, error)
}

// Planner groups an app's rendered objects into roles and waves.
type Planner interface {
	Plan(objs []*unstructured.Unstructured, app AppConfig) (*render.Plan, error)
}

// Applier writes objects to the cluster and waits for them to be healthy.
type Applier interface {
	Apply(ctx context.Context, objs []*unstructured.Unstructured, opts apply.ApplyOptions) ([]apply.Result, error)
	WaitHealthy(ctx context.Context, objs []*unstructured.Unstructured, timeout time.Duration) error
	// ResetMapper forgets discovered kinds after CRDs were installed.
	ResetMapper()
}

// StatusReader reads files from the status branch; a missing file is
// os.ErrNotExist.
type StatusReader interface {
	ReadFile(ctx context.Context, name string) ([]byte, error)
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
	_ Applier     = (*apply.Applier)(nil)
	_ Renderer    = kustomizeRenderer{}
	_ Planner     = rolePlanner{}
)

// kustomizeRenderer is the Renderer of render.Renderer.
type kustomizeRenderer struct{ r render.Renderer }

func (k kustomizeRenderer) Render(ctx context.Context, root string, app AppConfig) ([]*unstructured.Unstructured, error) {
	objs, err := k.r.Build(ctx, root, app.Path)
	if err != nil {
		return nil, err
	}
	ns := app.Namespace
	if ns == "" {
		ns = "default"
	}
	return objs, render.DefaultNamespace(objs, ns)
}

// rolePlanner is the Planner of render.NewPlan with the app's role
// config.
type rolePlanner struct{}

func (rolePlanner) Plan(objs []*unstructured.Unstructured, app AppConfig) (*render.Plan, error) {
	opts := render.PlanOptions{UnorderedRoles: render.UnorderedPolicy(app.UnorderedRoles)}
	for _, r := range app.Roles {
		spec := render.RoleSpec{Name: r.Name, UpgradeOrder: r.UpgradeOrder, Kinds: r.Kinds}
		if r.Selector != nil {
			sel, err := metav1.LabelSelectorAsSelector(r.Selector)
			if err != nil {
				return nil, err
			}
			spec.Selector = sel
		}
		opts.Roles = append(opts.Roles, spec)
	}
	return render.NewPlan(objs, opts)
}
