package agent

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/revision"
)

// Notes of an offline DiffReport's steps (StepDiff.Note).
const (
	// PrerequisitesNotRecorded: the status records the prerequisite
	// step's hash, not its objects, so a changed step shows each of them
	// whole.
	PrerequisitesNotRecorded = "the status records only this step's hash, which differs from the render's: every prerequisite is applied again and shown whole"
	// PruneOff: the app does not prune, so objects that left git leave
	// its inventory but stay in the cluster.
	PruneOff = "prune is off: objects that left git leave the inventory but stay in the cluster"
)

// diffOffline compares plan with the last status in git, without a
// cluster, as the reconcile of plan would find it:
//   - the prerequisite step, whose objects the status does not record, by
//     its hash (AppStatus.Prerequisites): unchanged when it is the hash
//     applied, else each prerequisite an update (the inventory lists it)
//     or a create;
//   - each role's rendered objects against the objects recorded in the
//     revision the status says is applied (as rendered, before roleout's
//     labels); a role the status does not have is RoleAdded;
//   - each role the status has and the render does not is RoleRemoved.
//
// Objects that left git (the inventory's and the applied revisions') are
// deletions of their step, with the content their revision records; with
// prune off they are listed too, and the step says they stay (PruneOff).
// Secret values are compared by their masks.
func diffOffline(app config.App, plan *render.Plan, prev *previous) *DiffReport {
	d := offlineDiffer{app: app, plan: plan, prev: prev, rendered: map[string]bool{}, listed: map[string]bool{}}
	for _, o := range plan.Prerequisites {
		d.rendered[key(o.Object)] = true
	}
	for _, r := range plan.Roles() {
		for _, o := range r.Objects {
			d.rendered[key(o.Object)] = true
		}
	}
	rep := &DiffReport{App: app.Name, Offline: true}
	rep.addStep(d.prerequisites())
	for _, role := range plan.Roles() {
		rep.addStep(d.role(role))
	}
	for _, st := range removedRoles(plan, prev) {
		rep.addStep(d.note(StepDiff{Role: st.Name, UpgradeOrder: st.UpgradeOrder, Change: RoleRemoved,
			Objects: d.deletes(st.Name, recordedObjects(prev, st.Name))}))
	}
	// Inventory entries of no role the status or the render has (an
	// inventory a failed rollout merged, say) are pruned all the same.
	if rest := d.deletes("", nil); len(rest) > 0 {
		rep.addStep(d.note(StepDiff{Role: PruneStep, Objects: rest}))
	}
	return rep
}

// offlineDiffer is one offline diff of a plan against the last status in
// git.
type offlineDiffer struct {
	app  config.App
	plan *render.Plan
	prev *previous
	// rendered holds the key of every object of the plan; listed those
	// of the deletions reported so far.
	rendered, listed map[string]bool
}

// prerequisites is the prerequisite step: the plan's prerequisites
// compared by the step's hash (prerequisiteDiff), then those that left
// git.
func (d offlineDiffer) prerequisites() StepDiff {
	s := StepDiff{Role: PrerequisitesStep}
	diff, unchanged := prerequisiteDiff(d.plan, d.prev)
	for _, o := range d.plan.Prerequisites {
		s.Objects = append(s.Objects, ObjectDiff{ObjectDiff: diff(o)})
	}
	if !unchanged && len(d.plan.Prerequisites) > 0 {
		s.Note = PrerequisitesNotRecorded
	}
	for _, e := range d.plan.Prune {
		if e.Prerequisite {
			d.listed[refKey(e.Ref)] = true
			s.Objects = append(s.Objects, ObjectDiff{ObjectDiff: deleteDiff(e.Ref, nil)})
		}
	}
	return d.note(s)
}

// role is the step of a role of the plan: its objects against its
// applied revision, then those that left it.
func (d offlineDiffer) role(role *render.Role) StepDiff {
	recorded := recordedObjects(d.prev, role.Name)
	s := StepDiff{Role: role.Name, UpgradeOrder: role.UpgradeOrder, Workloads: restarts(role, nil, nil)}
	if d.prev == nil || d.prev.status.role(role.Name) == nil {
		s.Change = RoleAdded
	}
	for _, o := range role.Objects {
		s.Objects = append(s.Objects, ObjectDiff{ObjectDiff: offlineDiff(o, recorded, d.plan.Masker)})
	}
	s.Objects = append(s.Objects, d.deletes(role.Name, recorded)...)
	return d.note(s)
}

// deletes returns the deletions of role's objects that left git: the
// inventory entries of role the plan prunes, then the objects recorded
// (role's applied revision) that the render no longer has anywhere, each
// with its recorded content. An object that moved to another role is not
// deleted. Role "" takes the role entries of the prune set that no step
// listed.
func (d offlineDiffer) deletes(role string, recorded map[string]map[string]any) []ObjectDiff {
	var out []ObjectDiff
	for _, e := range d.plan.Prune {
		k := refKey(e.Ref)
		if e.Prerequisite || d.listed[k] || (role != "" && e.Role != role) {
			continue
		}
		d.listed[k] = true
		out = append(out, ObjectDiff{ObjectDiff: deleteDiff(e.Ref, recorded[k])})
	}
	keys := make([]string, 0, len(recorded))
	for k := range recorded {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if d.rendered[k] || d.listed[k] {
			continue
		}
		d.listed[k] = true
		u := &unstructured.Unstructured{Object: recorded[k]}
		out = append(out, ObjectDiff{ObjectDiff: deleteDiff(object.RefOf(u), recorded[k])})
	}
	return out
}

// note adds PruneOff to the note of a step that deletes objects when the
// app does not prune.
func (d offlineDiffer) note(s StepDiff) StepDiff {
	if d.app.Prune || !slices.ContainsFunc(s.Objects, func(o ObjectDiff) bool { return o.Change == apply.Delete }) {
		return s
	}
	if s.Note != "" {
		s.Note += "; "
	}
	s.Note += PruneOff
	return s
}

// removedRoles returns, in status order, the roles of the last status in
// git that the plan does not have.
func removedRoles(plan *render.Plan, prev *previous) []*RoleStatus {
	if prev == nil || prev.status == nil {
		return nil
	}
	planned := map[string]bool{}
	for _, r := range plan.Roles() {
		planned[r.Name] = true
	}
	var out []*RoleStatus
	for _, st := range prev.status.Roles {
		if !planned[st.Name] {
			out = append(out, st)
		}
	}
	return out
}

// prerequisiteDiff returns how a prerequisite of plan compares with the
// last status in git, which records the step's hash and the inventory,
// not the objects: unchanged when the hash is the one applied; else an
// update when the inventory lists the object, a create when not, either
// with the whole object as its diff. unchanged reports the first case.
func prerequisiteDiff(plan *render.Plan, prev *previous) (diff func(*unstructured.Unstructured) apply.ObjectDiff, unchanged bool) {
	unchanged = prev != nil && prev.status != nil && prev.status.Prerequisites != nil &&
		prev.status.Prerequisites.Hash == plan.PrerequisitesHash
	applied := map[string]bool{}
	if prev != nil {
		for _, e := range prev.inventory {
			applied[refKey(e.Ref)] = true
		}
	}
	return func(o *unstructured.Unstructured) apply.ObjectDiff {
		ref := object.RefOf(o)
		switch {
		case unchanged:
			return apply.ObjectDiff{Object: ref, Change: apply.NoChange}
		case applied[refKey(object.RefOf(o))]:
			return apply.ObjectDiff{Object: ref, Change: apply.Update, Diff: apply.UnifiedDiff(ref, nil, revision.Record(o, plan.Masker))}
		default:
			return apply.ObjectDiff{Object: ref, Change: apply.Create, Diff: apply.UnifiedDiff(ref, nil, revision.Record(o, plan.Masker))}
		}
	}, unchanged
}

// deleteDiff is the deletion of the object ref names, with m, its
// recorded content, as the diff (none when nil).
func deleteDiff(ref object.Ref, m map[string]any) apply.ObjectDiff {
	d := apply.ObjectDiff{Object: ref, Change: apply.Delete}
	if m != nil {
		d.Diff = apply.UnifiedDiff(ref, m, nil)
	}
	return d
}

// recordedObjects returns, by key, the objects recorded in the revision
// the status says role has applied; none for a new role.
func recordedObjects(prev *previous, role string) map[string]map[string]any {
	recorded := map[string]map[string]any{}
	if prev == nil {
		return recorded
	}
	if st := prev.status.role(role); st != nil {
		for _, h := range prev.history[role] {
			if h.Name == st.RevisionName {
				for _, m := range h.Objects {
					recorded[key(m)] = m
				}
			}
		}
	}
	return recorded
}

// offlineDiff compares a rendered object, recorded with m, with its
// recorded version.
func offlineDiff(o *unstructured.Unstructured, recorded map[string]map[string]any, m *secrets.Masker) apply.ObjectDiff {
	want := revision.Record(o, m)
	d := apply.ObjectDiff{Object: object.RefOf(o), Change: apply.Create}
	if have, ok := recorded[key(want)]; ok {
		d.Change = apply.NoChange
		if d.Diff = apply.UnifiedDiff(d.Object, have, want); d.Diff != "" {
			d.Change = apply.Update
		}
	} else {
		d.Diff = apply.UnifiedDiff(d.Object, nil, want)
	}
	return d
}

// key identifies the object m across API versions: group, kind,
// namespace, name.
func key(m map[string]any) string {
	u := unstructured.Unstructured{Object: m}
	return u.GroupVersionKind().GroupKind().String() + "/" + u.GetNamespace() + "/" + u.GetName()
}
