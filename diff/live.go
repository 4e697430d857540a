package diff

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// Live compares plan with the cluster c by server-side dry run: nothing
// is written. Secret values are masked. Objects of kinds whose CRD the
// plan installs show as "create (CRD pending)". When the target prunes,
// objects that left git and would be deleted are listed too.
func Live(ctx context.Context, c Reader, t Target, plan *model.Plan) (*Report, error) {
	return live{cluster: c, target: t, plan: plan}.report(ctx)
}

// Preview compares a pull request's plan with the app's cluster by
// server-side dry run, reading only inside scope (PreviewScope); every
// other object is compared with rec, the last status in git, and says so
// (Object.NotCompared).
func Preview(ctx context.Context, c Reader, t Target, plan *model.Plan, scope Scope, rec *Recorded) (*Report, error) {
	if scope == nil {
		scope = Scope{}
	}
	return live{cluster: c, target: t, plan: plan, scope: scope, rec: rec}.report(ctx)
}

// live is one diff of a plan against the cluster.
type live struct {
	cluster Reader
	target  Target
	plan    *model.Plan
	// scope is what the diff may read of the cluster (nil: everything);
	// objects outside it are compared with rec, the last status in git.
	scope Scope
	rec   *Recorded
}

func (d live) report(ctx context.Context) (*Report, error) {
	rep := &Report{App: d.target.App}
	// One read first: an unreachable cluster is one error, not one per
	// object.
	if first := firstObject(d.plan, d.scope); first != nil {
		if _, err := d.cluster.Live(ctx, object.RefOf(first)); err != nil {
			return nil, fmt.Errorf("read the cluster: %w", err)
		}
	}
	opts := apply.DiffOptions{ApplyOptions: d.target.Apply, PendingKinds: crdKinds(d.plan.Prerequisites), PendingNamespaces: map[string]bool{}}
	opts.SkipUnchanged, opts.Owner = false, apply.Ownership{}
	for _, o := range d.plan.Prerequisites {
		if o.GetKind() == "Namespace" && o.GetAPIVersion() == "v1" {
			opts.PendingNamespaces[o.GetName()] = true
		}
	}
	diffs, err := d.diff(ctx, d.plan.Prerequisites, "", opts)
	if err != nil {
		return nil, err
	}
	rep.addStep(Step{Role: PrerequisitesStep, Objects: diffs})
	current := observeWorkloads(ctx, d.cluster, d.plan.Roles(), d.scope)
	for _, role := range d.plan.Roles() {
		diffs, err := d.diff(ctx, role.Objects, role.Name, opts)
		if err != nil {
			return nil, fmt.Errorf("role %s: %w", role.Name, err)
		}
		rep.addStep(Step{Role: role.Name, UpgradeOrder: role.UpgradeOrder, Objects: diffs,
			Workloads: restarts(role, current, d.scope)})
	}
	if d.target.Prune != nil {
		deletes, err := d.prunes(ctx)
		if err != nil {
			return nil, err
		}
		rep.addStep(Step{Role: PruneStep, Objects: deletes})
	}
	return rep, nil
}

// diff compares the objects of a step (role names a role; "" is the
// prerequisite step): those the scope reads by dry run, labelled with
// their role, the others offline (offlineStep); objs' order is kept.
func (d live) diff(ctx context.Context, objs []*unstructured.Unstructured, role string, opts apply.DiffOptions) ([]Object, error) {
	live := d.scope.Filter(objs)
	if role != "" {
		live = object.WithLabel(live, object.RoleLabel, role)
	}
	diffs, err := d.cluster.Diff(ctx, live, opts)
	if err != nil {
		return nil, err
	}
	if len(live) == len(objs) {
		return objects(diffs), nil
	}
	offline := d.offlineStep(role)
	out := make([]Object, 0, len(objs))
	for _, o := range objs {
		ref := object.RefOf(o)
		if d.scope.ReadsObject(ref) && len(diffs) > 0 {
			out = append(out, Object{ObjectDiff: diffs[0]})
			diffs = diffs[1:]
			continue
		}
		out = append(out, Object{ObjectDiff: offline(o), NotCompared: notRead(ref)})
	}
	return out, nil
}

// offlineStep returns how an object of a step (role names a role, ""
// the prerequisite step) that the diff may not read is compared with the
// last status in git: a role's object with the role's applied revision, as
// Offline does; a prerequisite, whose content the status does not
// record, by the step's hash and the inventory (prerequisiteDiff).
func (d live) offlineStep(role string) func(*unstructured.Unstructured) model.ObjectDiff {
	if role != "" {
		recorded := d.rec.objects(role)
		return func(o *unstructured.Unstructured) model.ObjectDiff { return offlineDiff(o, recorded, d.plan) }
	}
	diff, _ := prerequisiteDiff(d.plan, d.rec)
	return diff
}

// prunes lists the objects that left git and would be deleted: those the
// cluster shows this app owns and does not protect; those outside the
// scope as the last status in git records them.
func (d live) prunes(ctx context.Context) ([]Object, error) {
	var deletes []Object
	recorded := map[string]map[string]map[string]any{} // by role
	for _, e := range d.plan.Prune {
		if !d.scope.ReadsObject(e.Ref) {
			if recorded[e.Role] == nil {
				recorded[e.Role] = d.rec.objects(e.Role)
			}
			del := deleteDiff(e.Ref, recorded[e.Role][e.Ref.Key()])
			deletes = append(deletes, Object{ObjectDiff: del, NotCompared: notRead(e.Ref)})
			continue
		}
		live, err := d.cluster.Live(ctx, e.Ref)
		if err != nil {
			return nil, err
		}
		if live != nil && d.target.Prune.Keep(live) == "" {
			deletes = append(deletes, Object{ObjectDiff: apply.DeleteDiff(live, d.plan.Masker)})
		}
	}
	return deletes, nil
}

// restarts returns the workloads of role whose pods would be restarted
// or created: against the cluster when current holds what the
// controllers made of the live templates (for the workloads scope reads),
// else against the role's previous revision.
func restarts(role *model.Role, current map[object.Ref]apply.ObserveResult, scope Scope) []Workload {
	var out []Workload
	for _, w := range role.Workloads {
		d := Workload{Kind: w.Ref.Kind, Namespace: w.Ref.Namespace, Name: w.Ref.Name, Predicted: w.Predicted, Unverified: w.Unverified}
		restart := w.RestartsPods
		if current != nil && scope.Reads(w.Ref.Namespace) {
			if res, ok := current[w.Ref]; ok && res.Err == nil {
				p := res.Observed
				d.Current = &p
				// Without a prediction, the plan's answer (the object
				// changed) stands.
				if !w.Predicted.IsZero() {
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

// observeWorkloads reads, in one round of LISTs, the identities the
// controllers gave the live templates of the roles' workloads that scope
// reads; an empty map when they have none.
func observeWorkloads(ctx context.Context, c Reader, roles []*model.Role, scope Scope) map[object.Ref]apply.ObserveResult {
	var objs []*unstructured.Unstructured
	for _, role := range roles {
		for _, o := range role.Objects {
			if apply.Observes(o) && scope.Reads(o.GetNamespace()) {
				objs = append(objs, o)
			}
		}
	}
	if len(objs) == 0 {
		return map[object.Ref]apply.ObserveResult{}
	}
	return c.ObserveAll(ctx, objs)
}

// firstObject returns the plan's first object in apply order that scope
// reads, nil when it has none.
func firstObject(plan *model.Plan, scope Scope) *unstructured.Unstructured {
	steps := [][]*unstructured.Unstructured{plan.Prerequisites}
	for _, r := range plan.Roles() {
		steps = append(steps, r.Objects)
	}
	for _, objs := range steps {
		for _, o := range objs {
			if scope.ReadsObject(object.RefOf(o)) {
				return o
			}
		}
	}
	return nil
}

// crdKinds returns the kinds the CRDs among objs define.
func crdKinds(objs []*unstructured.Unstructured) map[runtimeschema.GroupKind]bool {
	out := map[runtimeschema.GroupKind]bool{}
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
		out[runtimeschema.GroupKind{Group: group, Kind: kind}] = true
	}
	return out
}

// notRead is why a preview compared ref offline: a Secret is never read,
// anything else was outside the app's namespaces.
func notRead(ref object.Ref) string {
	if isSecret(ref) {
		return SecretsNotRead
	}
	return OutsideAppNamespaces
}
