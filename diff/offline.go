package diff

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/revision"
)

// Offline compares plan with rec, the last status in git, without a
// cluster, as the reconcile of plan would find it:
//   - the prerequisite step, whose objects the status does not record, by
//     its hash (Recorded.PrerequisitesHash): unchanged when it is the
//     hash applied, else each prerequisite an update (the inventory lists
//     it) or a create;
//   - each role's rendered objects against the objects recorded in the
//     revision the status says is applied (as rendered, before roleout's
//     labels); a role the status does not have is RoleAdded;
//   - each role the status has and the render does not is RoleRemoved.
//
// Objects that left git (the inventory's and the applied revisions') are
// deletions of their step, with the content their revision records; when
// the target does not prune they are listed too, and the step says they
// stay (PruneOff). Secret values are compared by their masks. rec may be
// nil: nothing is recorded.
func Offline(t Target, plan *model.Plan, rec *Recorded) *Report {
	if rec == nil {
		rec = &Recorded{}
	}
	d := offline{target: t, plan: plan, rec: rec, rendered: map[string]bool{}, listed: map[string]bool{}}
	for _, o := range plan.Prerequisites {
		d.rendered[key(o.Object)] = true
	}
	for _, r := range plan.Roles() {
		for _, o := range r.Objects {
			d.rendered[key(o.Object)] = true
		}
	}
	rep := &Report{App: t.App, Offline: true}
	rep.addStep(d.prerequisites())
	for _, role := range plan.Roles() {
		rep.addStep(d.role(role))
	}
	for _, rr := range d.removedRoles() {
		rep.addStep(d.note(Step{Role: rr.Name, UpgradeOrder: rr.UpgradeOrder, Change: RoleRemoved,
			Objects: d.deletes(rr.Name, rec.objects(rr.Name))}))
	}
	// Inventory entries of no role the status or the render has (an
	// inventory a failed rollout merged, say) are pruned all the same.
	if rest := d.deletes("", nil); len(rest) > 0 {
		rep.addStep(d.note(Step{Role: PruneStep, Objects: rest}))
	}
	return rep
}

// offline is one offline diff of a plan against the last status in git.
type offline struct {
	target Target
	plan   *model.Plan
	rec    *Recorded
	// rendered holds the key of every object of the plan; listed those
	// of the deletions reported so far.
	rendered, listed map[string]bool
}

// prerequisites is the prerequisite step: the plan's prerequisites
// compared by the step's hash (prerequisiteDiff), then those that left
// git.
func (d offline) prerequisites() Step {
	s := Step{Role: PrerequisitesStep}
	diff, unchanged := prerequisiteDiff(d.plan, d.rec)
	for _, o := range d.plan.Prerequisites {
		s.Objects = append(s.Objects, Object{ObjectDiff: diff(o)})
	}
	if !unchanged && len(d.plan.Prerequisites) > 0 {
		s.Note = PrerequisitesNotRecorded
	}
	for _, e := range d.plan.Prune {
		if e.Prerequisite {
			d.listed[e.Ref.Key()] = true
			s.Objects = append(s.Objects, Object{ObjectDiff: deleteDiff(e.Ref, nil)})
		}
	}
	return d.note(s)
}

// role is the step of a role of the plan: its objects against its
// applied revision, then those that left it.
func (d offline) role(role *model.Role) Step {
	recorded := d.rec.objects(role.Name)
	s := Step{Role: role.Name, UpgradeOrder: role.UpgradeOrder, Workloads: restarts(role, nil, nil)}
	if d.rec.role(role.Name) == nil {
		s.Change = RoleAdded
	}
	for _, o := range role.Objects {
		s.Objects = append(s.Objects, Object{ObjectDiff: offlineDiff(o, recorded, d.plan)})
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
func (d offline) deletes(role string, recorded map[string]map[string]any) []Object {
	var out []Object
	for _, e := range d.plan.Prune {
		k := e.Ref.Key()
		if e.Prerequisite || d.listed[k] || (role != "" && e.Role != role) {
			continue
		}
		d.listed[k] = true
		out = append(out, Object{ObjectDiff: deleteDiff(e.Ref, recorded[k])})
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
		out = append(out, Object{ObjectDiff: deleteDiff(object.RefOf(u), recorded[k])})
	}
	return out
}

// note adds PruneOff to the note of a step that deletes objects when the
// target does not prune.
func (d offline) note(s Step) Step {
	if d.target.Prune != nil || !slices.ContainsFunc(s.Objects, func(o Object) bool { return o.Change == model.Delete }) {
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
func (d offline) removedRoles() []RecordedRole {
	planned := map[string]bool{}
	for _, r := range d.plan.Roles() {
		planned[r.Name] = true
	}
	var out []RecordedRole
	for _, rr := range d.rec.Roles {
		if !planned[rr.Name] {
			out = append(out, rr)
		}
	}
	return out
}

// prerequisiteDiff returns how a prerequisite of plan compares with the
// last status in git, which records the step's hash and the inventory,
// not the objects: unchanged when the hash is the one applied; else an
// update when the inventory lists the object, a create when not, either
// with the whole object as its diff. unchanged reports the first case.
func prerequisiteDiff(plan *model.Plan, rec *Recorded) (diff func(*unstructured.Unstructured) model.ObjectDiff, unchanged bool) {
	unchanged = rec != nil && rec.PrerequisitesHash != "" && rec.PrerequisitesHash == plan.PrerequisitesHash
	applied := map[string]bool{}
	if rec != nil {
		for _, e := range rec.Inventory {
			applied[e.Ref.Key()] = true
		}
	}
	return func(o *unstructured.Unstructured) model.ObjectDiff {
		ref := object.RefOf(o)
		switch {
		case unchanged:
			return model.ObjectDiff{Object: ref, Change: model.NoChange}
		case applied[ref.Key()]:
			return model.ObjectDiff{Object: ref, Change: model.Update, Diff: apply.UnifiedDiff(ref, nil, revision.Record(o, plan.Masker))}
		default:
			return model.ObjectDiff{Object: ref, Change: model.Create, Diff: apply.UnifiedDiff(ref, nil, revision.Record(o, plan.Masker))}
		}
	}, unchanged
}

// deleteDiff is the deletion of the object ref names, with m, its
// recorded content, as the diff (none when nil).
func deleteDiff(ref object.Ref, m map[string]any) model.ObjectDiff {
	d := model.ObjectDiff{Object: ref, Change: model.Delete}
	if m != nil {
		d.Diff = apply.UnifiedDiff(ref, m, nil)
	}
	return d
}

// offlineDiff compares a rendered object, recorded with the plan's
// Masker, with its recorded version.
func offlineDiff(o *unstructured.Unstructured, recorded map[string]map[string]any, plan *model.Plan) model.ObjectDiff {
	want := revision.Record(o, plan.Masker)
	d := model.ObjectDiff{Object: object.RefOf(o), Change: model.Create}
	if have, ok := recorded[key(want)]; ok {
		d.Change = model.NoChange
		if d.Diff = apply.UnifiedDiff(d.Object, have, want); d.Diff != "" {
			d.Change = model.Update
		}
	} else {
		d.Diff = apply.UnifiedDiff(d.Object, nil, want)
	}
	return d
}
