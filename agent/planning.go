package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/kubeminor"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/render/predict"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// planning is how an app is planned: the one pipeline behind a reconcile,
// a rollback, a pull-request preview, `roleout plan` and `roleout diff`
// (with --config or a local DIR). It renders the snapshot's overlay,
// refuses the render whole when an object lies outside the app's
// destinations, and plans it against the app's previous status and, when
// there is one, the app's cluster.
type planning struct {
	// cfg gives the destinations' defaults and the field names errors
	// cite.
	cfg      *config.Config
	renderer Renderer
	planner  Planner
	masker   *secrets.Masker
	// own is the agent's own cluster, where decryption.keySecret is
	// read; nil for a command that reaches no cluster.
	own ClusterReader
}

// planRequest is one plan of an app.
type planRequest struct {
	snap sources.Snapshot
	app  config.App
	// prev is what the status branch holds of the app; an empty one plans
	// against no history.
	prev *status.Records
	// cluster is read for collision counts, CRDs and (for a trusted
	// snapshot) versions; nil plans offline.
	cluster ClusterReader
	// unconfined plans a local directory, which no app config confines:
	// no destinations are checked.
	unconfined bool
	// where names the overlay in messages; empty: the app's path at the
	// snapshot's revision.
	where string
	// crds are CustomResourceDefinitions the app's dependencies
	// (dependsOn) render, for an offline plan: they give the app's
	// custom resources a scope and a schema before any cluster has them
	// (dependencyCRDs).
	crds []*unstructured.Unstructured
	// versions, when set, are the versions of Kubernetes and of the
	// workload controllers to plan for instead of the cluster's (roleout
	// plan --kubernetes-version, --controller): the plan's predictions
	// are those versions', and its Upgrade says what moving to them
	// would roll (planUpgrade).
	versions *object.ClusterVersions
}

// planning returns the agent's planning pipeline.
func (a *Agent) planning() planning {
	return planning{cfg: a.cfg, renderer: a.deps.Renderer, planner: a.deps.Planner, masker: a.deps.Masker, own: a.deps.Cluster}
}

// plan renders, confines and plans one app (see planning).
func (p planning) plan(ctx context.Context, req planRequest) (*model.Plan, error) {
	objs, scopes, err := p.render(ctx, req)
	if err != nil {
		return nil, err
	}
	facts := p.readCluster(ctx, req, objs, scopes)
	if req.versions != nil {
		return p.planUpgrade(ctx, req, objs, facts)
	}
	return p.planObjects(ctx, req, objs, facts)
}

// planUpgrade plans objs twice from one render: with the versions the
// cluster runs (with no cluster, the ones roleout models), and with
// req.versions; it returns the second plan with what the move from the
// first would roll.
func (p planning) planUpgrade(ctx context.Context, req planRequest, objs []*unstructured.Unstructured, facts plan.Facts) (*model.Plan, error) {
	copies := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		copies[i] = o.DeepCopy()
	}
	base, err := p.planObjects(ctx, req, objs, facts)
	if err != nil {
		return nil, err
	}
	facts.Versions = upgraded(facts.Versions, *req.versions)
	next, err := p.planObjects(ctx, req, copies, facts)
	if err != nil {
		return nil, err
	}
	u := model.CompareUpgrade(base, next)
	u.Kubernetes, u.Controllers = req.versions.Kubernetes, req.versions.Controllers
	next.Upgrade = &u
	return next, nil
}

// upgraded returns now with the versions to set in to.
func upgraded(now, to object.ClusterVersions) object.ClusterVersions {
	out := object.ClusterVersions{Kubernetes: now.Kubernetes, Controllers: maps.Clone(now.Controllers)}
	if to.Kubernetes != "" {
		out.Kubernetes = to.Kubernetes
	}
	for name, v := range to.Controllers {
		if out.Controllers == nil {
			out.Controllers = map[string]string{}
		}
		out.Controllers[name] = v
	}
	return out
}

// planRestored plans the app twice from one render: git's version, and
// the version with held's role put back at its recorded revision. An
// error of git's plan is returned as plan's would be; one of the restored
// plan refuses the rollback (the run's record says why) and returns git's
// plan alone.
func (p planning) planRestored(ctx context.Context, req planRequest, held *heldRole) (git, restored *model.Plan, err error) {
	objs, scopes, err := p.render(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	back := held.revision.UnstructuredObjects()
	// The cluster is read once, for both plans.
	facts := p.readCluster(ctx, req, append(slices.Clip(objs), back...), scopes)
	if git, err = p.planObjects(ctx, req, objs, facts); err != nil {
		return nil, nil, err
	}
	drop := map[object.Ref]bool{}
	if r := git.Role(held.role); r != nil {
		for _, o := range r.Objects {
			drop[object.RefOf(o)] = true
		}
	}
	objs = replaceRole(objs, held.role, drop, back)
	if facts.Scopes, err = kindScopes(ctx, req.cluster, objs); err == nil {
		restored, err = p.planObjects(ctx, req, objs, facts)
	}
	if err != nil {
		return git, nil, &restoreError{err: err}
	}
	return git, restored, nil
}

// restoreError is a plan of restored objects that failed: the rollback is
// refused, git's version stands.
type restoreError struct{ err error }

func (e *restoreError) Error() string { return e.err.Error() }
func (e *restoreError) Unwrap() error { return e.err }

// at names the overlay of req in messages: "overlays/prod at
// main@sha1:1a2b3c4".
func (req planRequest) at() string {
	if req.where != "" {
		return req.where
	}
	at := req.app.Path
	if req.snap.Revision.Commit != "" {
		at += " at " + req.snap.Revision.Short()
	}
	return at
}

// render renders req's snapshot and sets the namespace of the namespaced
// objects that name none.
func (p planning) render(ctx context.Context, req planRequest) ([]*unstructured.Unstructured, plan.Scopes, error) {
	if req.app.Removed {
		return nil, plan.Scopes{}, nil // its directory left git: nothing stays
	}
	objs, err := p.renderer.Render(ctx, req.snap, req.app)
	if err != nil {
		return nil, nil, fmt.Errorf("render %s: %w", req.at(), err)
	}
	if objs, err = p.decrypt(ctx, req, objs); err != nil {
		return nil, nil, fmt.Errorf("render %s: %w", req.at(), err)
	}
	if objs, err = p.substitute(ctx, req, objs); err != nil {
		return nil, nil, fmt.Errorf("render %s: %w", req.at(), err)
	}
	scopes, err := kindScopes(ctx, req.cluster, append(slices.Clip(objs), req.crds...))
	if err != nil {
		return nil, nil, fmt.Errorf("render %s: %w", req.at(), err)
	}
	plan.DefaultNamespace(objs, req.app.NamespaceOrDefault(), scopes)
	return objs, scopes, nil
}

// readCluster gathers what a plan of objs, rendered for req, knows of
// the cluster (plan.Facts): scopes, the kinds' scopes; nothing more when
// req plans offline. An untrusted snapshot's objects are read from the
// cluster only inside the app's namespaces, and the cluster's versions,
// read outside them, not at all (docs/design.md, "Safety and trust",
// Previews). The dependencies' CRDs (req.crds) join the cluster's.
func (p planning) readCluster(ctx context.Context, req planRequest, objs []*unstructured.Unstructured, scopes plan.Scopes) plan.Facts {
	f := plan.Facts{Scopes: scopes, Minors: kubeMinors()}
	if c := req.cluster; c != nil {
		live := objs
		if req.snap.Trust != sources.Trusted {
			var inv []model.InventoryEntry
			if req.prev != nil {
				inv = req.prev.Inventory
			}
			live = diff.PreviewScope(req.app.Namespace, inv).Filter(objs)
		} else {
			f.Versions = clusterVersions(ctx, c)
		}
		f.CollisionCounts, f.CRDs = collisionCounts(ctx, c, live), liveCRDs(ctx, c, live)
	}
	f.CRDs = append(slices.Clip(f.CRDs), req.crds...)
	return f
}

// planObjects confines and plans objs, rendered for req, with the facts
// readCluster gathered.
func (p planning) planObjects(ctx context.Context, req planRequest, objs []*unstructured.Unstructured, facts plan.Facts) (*model.Plan, error) {
	app, at := req.app, req.at()
	roles, err := app.RoleSpecs()
	if err != nil {
		return nil, err
	}
	prev := req.prev
	if prev == nil {
		prev = &status.Records{}
	}
	opts := plan.Options{
		App: app.Name, Roles: roles, UnorderedRoles: model.UnorderedPolicy(app.UnorderedRoles), AllowEmpty: app.AllowEmpty,
		History: prev.History, Inventory: prev.Inventory, Source: req.snap.Revision.String(), Masker: p.masker,
	}
	if !req.unconfined {
		d, err := destinations(ctx, p.cfg, app, req.snap, req.cluster, objs)
		if err != nil {
			return nil, fmt.Errorf("render %s refused: %w", at, err)
		}
		opts.Destinations = &d
	}
	pl, err := p.planner.Plan(objs, opts, facts)
	var refused *plan.RefusedError
	switch {
	case errors.As(err, &refused):
		return nil, fmt.Errorf("render %s refused: objects outside the app's allowed namespaces and kinds, nothing of it applied:\n%w", at, refused.Err)
	case errors.Is(err, plan.ErrEmpty):
		return nil, fmt.Errorf("render %s: %w", at, err)
	case err != nil:
		return nil, fmt.Errorf("plan %s: %w", at, err)
	}
	return pl, nil
}

// collisionCounts reads the live status.collisionCount of every workload
// in objs, so predictions use what the controllers will use. Objects that
// do not exist yet, and read errors, count as none.
func collisionCounts(ctx context.Context, c ClusterReader, objs []*unstructured.Unstructured) map[object.Ref]*int32 {
	out := map[object.Ref]*int32{}
	var workloads []*unstructured.Unstructured
	for _, o := range objs {
		if predict.IsWorkload(o) {
			workloads = append(workloads, o)
		}
	}
	if len(workloads) == 0 {
		return out
	}
	for ref, cc := range c.CollisionCounts(ctx, workloads) {
		out[ref] = cc
	}
	return out
}

// liveCRDs reads from the cluster the CRDs of the custom workloads among
// objs, whose schema defaults predictions apply.
func liveCRDs(ctx context.Context, c ClusterReader, objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	seen := map[string]bool{}
	for _, o := range objs {
		gk := o.GroupVersionKind().GroupKind()
		if !predict.IsWorkload(o) || gk.Group == "apps" || seen[gk.String()] {
			continue
		}
		seen[gk.String()] = true
		if crd, err := c.CRDFor(ctx, o); err == nil && crd != nil {
			out = append(out, crd)
		}
	}
	return out
}

// clusterVersions reads the versions c runs of Kubernetes and of the
// controllers roleout models (predict.Controllers).
func clusterVersions(ctx context.Context, c ClusterReader) object.ClusterVersions {
	var cds []object.ControllerDeployment
	for _, c := range predict.Controllers() {
		cds = append(cds, c.ControllerDeployment)
	}
	return c.ClusterVersions(ctx, cds)
}

// dependencyCRDs renders, from snap, the apps app depends on (dependsOn,
// directly or through others) and returns the CustomResourceDefinitions
// they hold, for an offline plan of app (planRequest.crds). A dependency
// that does not render gives none: the plan of app then names the kinds
// it cannot place.
func (p planning) dependencyCRDs(ctx context.Context, snap sources.Snapshot, app config.App) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, dep := range p.cfg.Dependencies(app.Name) {
		objs, err := p.renderer.Render(ctx, snap, dep)
		if err != nil {
			continue
		}
		for _, o := range objs {
			if o.GroupVersionKind().GroupKind() == (schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}) {
				out = append(out, o)
			}
		}
	}
	return out
}

// kubeMinors are the prediction helpers of other Kubernetes minors
// (render/kubeminor.Dir), one set for the process: a helper, once
// started, serves every plan.
var kubeMinors = sync.OnceValue(func() predict.Minors { return kubeminor.New(kubeminor.Dir()) })
