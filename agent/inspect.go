package agent

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/render/substitute"
	"github.com/roleout/roleout/sources"
)

// Inspector renders and plans apps from a local checkout, as the agent
// renders and plans them, for `roleout init` (agent/starter.Inspector):
// the starter proposes from the objects it renders and checks that each
// app it proposes plans.
type Inspector struct{ renderer *kustomizeRenderer }

// NewInspector returns an Inspector whose renders run in the sandbox, as
// one-shot commands' do.
func NewInspector() *Inspector { return &Inspector{renderer: newKustomizeRenderer(0, nil)} }

// Render builds app's overlay from the checkout at root with the app's
// render settings and returns its objects, each with its source path
// (object.SourcePathAnnotation) and its namespace set as a plan sets it.
func (in *Inspector) Render(ctx context.Context, root string, app config.App) ([]*unstructured.Unstructured, error) {
	opts := renderOptions(app.Render)
	opts.Origins = true
	res, err := in.renderer.b.Build(ctx, render.Source{Root: root, Domain: string(sources.Trusted)}, app.Path, opts)
	if err != nil {
		return nil, err
	}
	objs := res.Objects
	if len(app.Substitute) > 0 {
		// The variables init knows (a Flux Kustomization's substitute);
		// those of substituteFrom are in a cluster, and empty here.
		if objs, err = substitute.Objects(objs, substitute.Options{Vars: app.Substitute, Fallback: func(string) string { return "" }}); err != nil {
			return nil, err
		}
	}
	plan.DefaultNamespace(objs, app.NamespaceOrDefault(), plan.KindScopes(objs, nil))
	return objs, nil
}

// Plan plans app of cfg from the checkout at root as `roleout plan
// --config` plans it from git: confined to the app's destinations,
// offline, against no history, with its dependencies' CRDs.
func (in *Inspector) Plan(ctx context.Context, root string, cfg *config.Config, app string) (*model.Plan, error) {
	a, err := cfg.App(app)
	if err != nil {
		return nil, err
	}
	snap := sources.Snapshot{Dir: root, Trust: sources.Trusted}
	p := planning{cfg: cfg, renderer: in.renderer, planner: rolePlanner{}, masker: secrets.Ephemeral()}
	return p.plan(ctx, planRequest{snap: snap, app: a, crds: p.dependencyCRDs(ctx, snap, a), where: a.Path})
}
