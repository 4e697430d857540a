package agent

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/predict"
)

// DiffReport is what a merge would change: per step (prerequisites, each
// role in apply order, prune) the objects to create, update or delete.
type DiffReport struct {
	App      string     `json:"app"`
	Revision string     `json:"revision,omitempty"`
	Offline  bool       `json:"offline"`
	Steps    []StepDiff `json:"steps"`
	Summary  DiffCounts `json:"summary"`
	// Changed says a merge would change something: an object to create,
	// update or delete, or (offline) a role the render adds or removes.
	// roleout diff exits 1 when it is set.
	Changed bool `json:"changed"`
}

// StepDiff is one step of a DiffReport.
type StepDiff struct {
	// Role is the role's name, or "(prerequisites)" or "(prune)".
	Role         string `json:"role"`
	UpgradeOrder int    `json:"upgradeOrder"`
	// Change is set, offline, on the step of a role the last status in
	// git does not have (RoleAdded) or of one it has that the render no
	// longer has (RoleRemoved); either is a change even when no object
	// of the step is.
	Change string `json:"change,omitempty"`
	// Note says, for a person, what the step's objects mean beyond their
	// changes (offline: what the status does not record, that prune is
	// off).
	Note    string       `json:"note,omitempty"`
	Objects []ObjectDiff `json:"objects"`
	Counts  DiffCounts   `json:"counts"`
	// Workloads are the role's workloads whose pods the change would
	// restart or create, with the identity their controller will give the
	// new template.
	Workloads []WorkloadDiff `json:"workloads,omitempty"`
}

// ObjectDiff is one object of a StepDiff: what would change and how (the
// fields of apply.ObjectDiff, inline in JSON).
type ObjectDiff struct {
	apply.ObjectDiff
	// NotCompared, set in a diff against the cluster, says why this
	// object was compared with the last status in git instead (a preview
	// reads the cluster only inside the app's namespaces).
	NotCompared string `json:"notCompared,omitempty"`
}

// objectDiffs wraps diffs of the cluster.
func objectDiffs(diffs []apply.ObjectDiff) []ObjectDiff {
	out := make([]ObjectDiff, len(diffs))
	for i, d := range diffs {
		out[i] = ObjectDiff{ObjectDiff: d}
	}
	return out
}

// WorkloadDiff is a workload whose pods a change restarts (or creates).
type WorkloadDiff struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Predicted is the identity the controller will give the new template.
	Predicted object.Identity `json:"predicted"`
	// Unverified, when set, says why Predicted may not be it (zero
	// Predicted: no prediction), as in the plan.
	Unverified string `json:"unverified,omitempty"`
	// Current is the identity of the live template, read from the cluster
	// (nil offline, or for a workload that does not exist yet).
	Current *object.Identity `json:"current,omitempty"`
}

// restarts returns the workloads of role whose pods would be restarted
// or created: against the cluster when current holds what the
// controllers made of the live templates (for the workloads scope reads),
// else against the role's previous revision.
func restarts(role *render.Role, current map[object.Ref]apply.ObserveResult, scope namespaceScope) []WorkloadDiff {
	var out []WorkloadDiff
	for _, w := range role.Workloads {
		d := WorkloadDiff{Kind: w.Ref.Kind, Namespace: w.Ref.Namespace, Name: w.Ref.Name, Predicted: w.Predicted, Unverified: w.Unverified}
		restart := w.RestartsPods
		if current != nil && scope.reads(w.Ref.Namespace) {
			if res, ok := current[w.Ref]; ok && res.Err == nil {
				p := res.Observed
				d.Current = &p
				// Without a prediction, the plan's answer (the object
				// changed) stands.
				if !w.Predicted.Equal(object.Identity{}) {
					restart = !p.Equal(w.Predicted)
				}
			} else {
				restart = true // not there yet (or unreadable): its pods are created
			}
		}
		if restart {
			out = append(out, d)
		}
	}
	return out
}

// DiffCounts counts the changes of a step or a report.
type DiffCounts struct {
	Create    int `json:"create"`
	Update    int `json:"update"`
	Delete    int `json:"delete"`
	Unchanged int `json:"unchanged"`
}

// Changed reports whether anything would change.
func (c DiffCounts) Changed() bool { return c.Create+c.Update+c.Delete > 0 }

func (c *DiffCounts) add(ch apply.Change) {
	switch ch {
	case apply.Create, apply.CreatePending, apply.CreateInPendingNamespace:
		c.Create++
	case apply.Update:
		c.Update++
	case apply.Delete:
		c.Delete++
	case apply.NoChange:
		c.Unchanged++
	}
}

// Step names of a DiffReport that are not roles.
const (
	PrerequisitesStep = "(prerequisites)"
	PruneStep         = "(prune)"
)

// Step changes of a DiffReport (StepDiff.Change).
const (
	RoleAdded   = "added"
	RoleRemoved = "removed"
)

// addStep counts s's changes into s and r and appends s to r.
func (r *DiffReport) addStep(s StepDiff) {
	for _, o := range s.Objects {
		s.Counts.add(o.Change)
		r.Summary.add(o.Change)
	}
	if s.Counts.Changed() || s.Change != "" {
		r.Changed = true
	}
	r.Steps = append(r.Steps, s)
}

// DiffLive compares plan with the cluster by server-side dry run: nothing
// is written. Secret values are masked. Objects of kinds whose CRD the
// plan installs show as "create (CRD pending)". With prune on, objects that
// left git and would be deleted are listed too.
func DiffLive(ctx context.Context, cluster ClusterReader, app config.App, plan *render.Plan) (*DiffReport, error) {
	return liveDiff{cluster: cluster, app: app, plan: plan}.report(ctx)
}

// liveDiff is one diff of a plan against the cluster.
type liveDiff struct {
	cluster ClusterReader
	app     config.App
	plan    *render.Plan
	// scope is what the diff may read of the cluster (nil: everything);
	// objects outside it are compared with prev, the last status in git,
	// and say so (ObjectDiff.NotCompared).
	scope namespaceScope
	prev  *previous
}

func (d liveDiff) report(ctx context.Context) (*DiffReport, error) {
	rep := &DiffReport{App: d.app.Name}
	// One read first: an unreachable cluster is one error, not one per
	// object.
	if first := firstObject(d.plan, d.scope); first != nil {
		if _, err := d.cluster.Live(ctx, object.RefOf(first)); err != nil {
			return nil, fmt.Errorf("read the cluster: %w", err)
		}
	}
	opts := apply.DiffOptions{
		ApplyOptions: apply.ApplyOptions{
			Force: d.app.Force, Labels: map[string]string{object.AppLabel: d.app.Name},
			FieldManager: fieldManager(d.app), Migrate: []string{apply.FieldManager},
		},
		PendingKinds: crdKinds(d.plan.Prerequisites), PendingNamespaces: map[string]bool{},
	}
	for _, o := range d.plan.Prerequisites {
		if o.GetKind() == "Namespace" && o.GetAPIVersion() == "v1" {
			opts.PendingNamespaces[o.GetName()] = true
		}
	}
	diffs, err := d.diff(ctx, d.plan.Prerequisites, "", opts)
	if err != nil {
		return nil, err
	}
	rep.addStep(StepDiff{Role: PrerequisitesStep, Objects: diffs})
	current := observeWorkloadsOf(ctx, d.cluster, d.plan.Roles(), d.scope)
	for _, role := range d.plan.Roles() {
		diffs, err := d.diff(ctx, role.Objects, role.Name, opts)
		if err != nil {
			return nil, fmt.Errorf("role %s: %w", role.Name, err)
		}
		rep.addStep(StepDiff{Role: role.Name, UpgradeOrder: role.UpgradeOrder, Objects: diffs,
			Workloads: restarts(role, current, d.scope)})
	}
	if d.app.Prune {
		deletes, err := d.prunes(ctx)
		if err != nil {
			return nil, err
		}
		rep.addStep(StepDiff{Role: PruneStep, Objects: deletes})
	}
	return rep, nil
}

// diff compares the objects of a step (role names a role; "" is the
// prerequisite step): those the scope reads by dry run, labelled with
// their role, the others offline (offlineStep); objs' order is kept.
func (d liveDiff) diff(ctx context.Context, objs []*unstructured.Unstructured, role string, opts apply.DiffOptions) ([]ObjectDiff, error) {
	live := d.scope.filter(objs)
	if role != "" {
		live = withLabel(live, object.RoleLabel, role)
	}
	diffs, err := d.cluster.Diff(ctx, live, opts)
	if err != nil {
		return nil, err
	}
	if len(live) == len(objs) {
		return objectDiffs(diffs), nil
	}
	offline := d.offlineStep(role)
	out := make([]ObjectDiff, 0, len(objs))
	for _, o := range objs {
		if d.scope.reads(o.GetNamespace()) && len(diffs) > 0 {
			out = append(out, ObjectDiff{ObjectDiff: diffs[0]})
			diffs = diffs[1:]
			continue
		}
		out = append(out, ObjectDiff{ObjectDiff: offline(o), NotCompared: OutsideAppNamespaces})
	}
	return out, nil
}

// prunes lists the objects that left git and would be deleted: those the
// cluster shows this app owns and does not protect; offline, those the
// inventory lists.
func (d liveDiff) prunes(ctx context.Context) ([]ObjectDiff, error) {
	var deletes []ObjectDiff
	for _, e := range d.plan.Prune {
		if !d.scope.reads(e.Namespace) {
			deletes = append(deletes, ObjectDiff{ObjectDiff: d.offlineDelete(e), NotCompared: OutsideAppNamespaces})
			continue
		}
		live, err := d.cluster.Live(ctx, e.Ref)
		if err != nil {
			return nil, err
		}
		if live != nil && pruneOptions(d.app, "").Keep(live) == "" {
			deletes = append(deletes, ObjectDiff{ObjectDiff: apply.DeleteDiff(live, d.plan.Masker)})
		}
	}
	return deletes, nil
}

// observeWorkloadsOf reads, in one round of LISTs, the identities the
// controllers gave the live templates of the roles' workloads that scope
// reads; an empty map when they have none.
func observeWorkloadsOf(ctx context.Context, cluster ClusterReader, roles []*render.Role, scope namespaceScope) map[object.Ref]apply.ObserveResult {
	var objs []*unstructured.Unstructured
	for _, role := range roles {
		for _, o := range role.Objects {
			if predict.IsWorkloadKind(o) && scope.reads(o.GetNamespace()) {
				objs = append(objs, o)
			}
		}
	}
	if len(objs) == 0 {
		return map[object.Ref]apply.ObserveResult{}
	}
	return cluster.ObserveAll(ctx, objs)
}

// firstObject returns the plan's first object in apply order that scope
// reads, nil when it has none.
func firstObject(plan *render.Plan, scope namespaceScope) *unstructured.Unstructured {
	steps := [][]*unstructured.Unstructured{plan.Prerequisites}
	for _, r := range plan.Roles() {
		steps = append(steps, r.Objects)
	}
	for _, objs := range steps {
		for _, o := range objs {
			if scope.reads(o.GetNamespace()) {
				return o
			}
		}
	}
	return nil
}

// crdKinds returns the kinds the CRDs among objs define.
func crdKinds(objs []*unstructured.Unstructured) map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
		out[schema.GroupKind{Group: group, Kind: kind}] = true
	}
	return out
}
