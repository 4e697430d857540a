package agent

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/revision"
)

// DiffReport is what a merge would change: per step (prerequisites, each
// role in apply order, prune) the objects to create, update or delete.
type DiffReport struct {
	App      string     `json:"app"`
	Revision string     `json:"revision,omitempty"`
	Offline  bool       `json:"offline"`
	Steps    []StepDiff `json:"steps"`
	Summary  DiffCounts `json:"summary"`
}

// StepDiff is one step of a DiffReport.
type StepDiff struct {
	// Role is the role's name, or "(prerequisites)" or "(prune)".
	Role         string             `json:"role"`
	UpgradeOrder int                `json:"upgradeOrder"`
	Objects      []apply.ObjectDiff `json:"objects"`
	Counts       DiffCounts         `json:"counts"`
	// Workloads are the role's workloads whose pods the change would
	// restart or create, with the identity their controller will give the
	// new template.
	Workloads []WorkloadDiff `json:"workloads,omitempty"`
}

// WorkloadDiff is a workload whose pods a change restarts (or creates).
type WorkloadDiff struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Predicted is the identity the controller will give the new template.
	Predicted revision.Prediction `json:"predicted"`
	// Current is the identity of the live template, read from the cluster
	// (nil offline, or for a workload that does not exist yet).
	Current *revision.Prediction `json:"current,omitempty"`
}

// restarts returns the workloads of role whose pods would be restarted
// or created: against the cluster when current holds what the
// controllers made of the live templates, else against the role's
// previous revision.
func restarts(role *render.Role, current map[apply.ObjectRef]apply.ObserveResult) []WorkloadDiff {
	var out []WorkloadDiff
	for _, w := range role.Workloads {
		d := WorkloadDiff{Kind: w.Ref.Kind, Namespace: w.Ref.Namespace, Name: w.Ref.Name, Predicted: w.Predicted}
		restart := w.RestartsPods
		if current != nil {
			if res, ok := current[apply.ObjectRef(w.Ref)]; ok && res.Err == nil {
				p := observedIdentity(res.Observed)
				d.Current, restart = &p, !p.Equal(w.Predicted)
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

func (r *DiffReport) addStep(s StepDiff) {
	for _, o := range s.Objects {
		s.Counts.add(o.Change)
		r.Summary.add(o.Change)
	}
	r.Steps = append(r.Steps, s)
}

// DiffLive compares plan with the cluster by server-side dry run: nothing
// is written. Secret values are masked. Objects of kinds whose CRD the
// plan installs show as "create (CRD pending)". With prune on, objects that
// left git and would be deleted are listed too.
func DiffLive(ctx context.Context, applier Applier, app AppConfig, plan *render.Plan) (*DiffReport, error) {
	rep := &DiffReport{App: app.Name}
	// One read first: an unreachable cluster is one error, not one per
	// object.
	if first := firstObject(plan); first != nil {
		if _, err := applier.Live(ctx, apply.RefOf(first)); err != nil {
			return nil, fmt.Errorf("read the cluster: %w", err)
		}
	}
	opts := apply.DiffOptions{
		ApplyOptions: apply.ApplyOptions{Force: app.Force, Labels: map[string]string{AppLabel: app.Name}},
		PendingKinds: crdKinds(plan.Prerequisites), PendingNamespaces: map[string]bool{},
	}
	for _, o := range plan.Prerequisites {
		if o.GetKind() == "Namespace" && o.GetAPIVersion() == "v1" {
			opts.PendingNamespaces[o.GetName()] = true
		}
	}
	diffs, err := applier.Diff(ctx, plan.Prerequisites, opts)
	if err != nil {
		return nil, err
	}
	rep.addStep(StepDiff{Role: PrerequisitesStep, Objects: diffs})
	current := observeWorkloadsOf(ctx, applier, plan.Roles())
	for _, role := range plan.Roles() {
		diffs, err := applier.Diff(ctx, withLabel(role.Objects, RoleLabel, role.Name), opts)
		if err != nil {
			return nil, fmt.Errorf("role %s: %w", role.Name, err)
		}
		rep.addStep(StepDiff{Role: role.Name, UpgradeOrder: role.UpgradeOrder, Objects: diffs,
			Workloads: restarts(role, current)})
	}
	if app.Prune {
		var deletes []apply.ObjectDiff
		for _, e := range plan.Prune {
			live, err := applier.Live(ctx, apply.ObjectRef(e.ObjectRef))
			if err != nil {
				return nil, err
			}
			if live != nil && live.GetLabels()[AppLabel] == app.Name && live.GetAnnotations()[apply.PruneAnnotation] != "false" {
				deletes = append(deletes, apply.DeleteDiff(live))
			}
		}
		rep.addStep(StepDiff{Role: PruneStep, Objects: deletes})
	}
	return rep, nil
}

// observeWorkloadsOf reads, in one round of LISTs, the identities the
// controllers gave the live templates of the roles' workloads; an empty
// map when they have none.
func observeWorkloadsOf(ctx context.Context, applier Applier, roles []*render.Role) map[apply.ObjectRef]apply.ObserveResult {
	var objs []*unstructured.Unstructured
	for _, role := range roles {
		for _, o := range role.Objects {
			if revision.IsWorkload(o) {
				objs = append(objs, o)
			}
		}
	}
	if len(objs) == 0 {
		return map[apply.ObjectRef]apply.ObserveResult{}
	}
	return applier.ObserveAll(ctx, objs)
}

// firstObject returns the plan's first object in apply order, nil when it
// has none.
func firstObject(plan *render.Plan) *unstructured.Unstructured {
	if len(plan.Prerequisites) > 0 {
		return plan.Prerequisites[0]
	}
	for _, r := range plan.Roles() {
		if len(r.Objects) > 0 {
			return r.Objects[0]
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

// DiffOffline compares plan with the last status in git, without a
// cluster: each role's rendered objects against the objects recorded in
// the revision the status says is applied (as rendered, before roleout's
// labels). Secret values are compared by their masks.
func DiffOffline(app AppConfig, plan *render.Plan, prev *previous) *DiffReport {
	rep := &DiffReport{App: app.Name, Offline: true}
	for _, role := range plan.Roles() {
		recorded := map[string]map[string]any{}
		if st := prev.status.role(role.Name); st != nil {
			for _, h := range prev.history[role.Name] {
				if h.Name == st.RevisionName {
					for _, m := range h.Objects {
						recorded[key(m)] = m
					}
				}
			}
		}
		step := StepDiff{Role: role.Name, UpgradeOrder: role.UpgradeOrder}
		seen := map[string]bool{}
		for _, o := range role.Objects {
			want := revision.Record(o)
			k := key(want)
			seen[k] = true
			d := apply.ObjectDiff{Object: apply.RefOf(o), Change: apply.Create}
			if have, ok := recorded[k]; ok {
				d.Change = apply.NoChange
				if d.Diff = apply.UnifiedDiff(d.Object, have, want); d.Diff != "" {
					d.Change = apply.Update
				}
			} else {
				d.Diff = apply.UnifiedDiff(d.Object, nil, want)
			}
			step.Objects = append(step.Objects, d)
		}
		step.Workloads = restarts(role, nil)
		for k, m := range recorded {
			if !seen[k] {
				u := &unstructured.Unstructured{Object: m}
				step.Objects = append(step.Objects, apply.ObjectDiff{Object: apply.RefOf(u), Change: apply.Delete,
					Diff: apply.UnifiedDiff(apply.RefOf(u), m, nil)})
			}
		}
		rep.addStep(step)
	}
	return rep
}

func key(m map[string]any) string {
	u := unstructured.Unstructured{Object: m}
	return u.GroupVersionKind().GroupKind().String() + "/" + u.GetNamespace() + "/" + u.GetName()
}
