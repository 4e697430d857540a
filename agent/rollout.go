package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// rollout is the bookkeeping of one app's rollout: which roles must be
// applied, and the status entries updated as waves finish.
type rollout struct {
	plan     *model.Plan
	revision sources.SourceRevision
	// apply holds the roles whose decided revision is not the one
	// applied: new templates, rollbacks, and retries of failed rollouts.
	apply         map[string]bool
	prereqChanged bool
	// prereq is the applied prerequisite step; nextPrereq replaces it
	// once the step is applied and healthy.
	prereq, nextPrereq *status.Step
	// roles are the status entries, in apply order.
	roles []*status.Role
	// trigger, started, waves and pruned make the rollout's record in
	// history.yaml.
	trigger string
	started time.Time
	waves   []status.Wave
	pruned  []string
	// drift is the app's drift when the watches started this reconcile
	// (planHeal); healObjs the drifted objects it applies again and
	// healing the roles applied for that alone.
	drift    []status.Drift
	healObjs map[object.Ref]bool
	healing  map[string]bool
	// held is the role a rollback holds at a recorded revision (see
	// rollback.go), heldSource the source revision that revision was
	// first rendered from; "" for none.
	held, heldSource string
}

// hold marks role as held at a recorded revision first rendered from
// source: applied, it is a rollback.
func (r *rollout) hold(role, source string) {
	r.held, r.heldSource = role, source
	if r.apply[role] {
		r.trigger = "rollback"
	}
}

// newRollout compares the plan's decisions with what the previous status
// says is applied.
func newRollout(rev sources.SourceRevision, plan *model.Plan, prev *status.App) *rollout {
	r := &rollout{plan: plan, revision: rev, apply: map[string]bool{}, trigger: "poll", started: time.Now()}
	r.nextPrereq = &status.Step{Hash: plan.PrerequisitesHash, Objects: len(plan.Prerequisites)}
	if prev != nil {
		r.prereq = prev.Prerequisites
	}
	if r.prereq == nil || r.prereq.Hash != plan.PrerequisitesHash {
		r.prereqChanged = len(plan.Prerequisites) > 0
		if !r.prereqChanged {
			r.prereq = r.nextPrereq
		}
	}
	for _, role := range plan.Roles() {
		st := &status.Role{Name: role.Name, UpgradeOrder: role.UpgradeOrder, Objects: len(role.Objects), Result: status.RoleUnchanged}
		old := prev.Role(role.Name)
		if old != nil {
			st.Hash, st.RevisionNumber, st.RevisionName, st.AppliedSourceRevision = old.Hash, old.RevisionNumber, old.RevisionName, old.AppliedSourceRevision
			st.Workloads = old.Workloads
		}
		if st.RevisionName != role.Decision.Revision.Name || st.RevisionNumber != role.Decision.Revision.Number {
			r.apply[role.Name] = true
			st.Result = status.RolePending
			if role.Decision.Action == revision.Unchanged {
				restartsAgainstApplied(role, old)
			}
		}
		r.roles = append(r.roles, st)
	}
	return r
}

// restartsAgainstApplied sets whether each workload of role restarts its
// pods, for a role applied although its decision is unchanged (the
// history holds the revision, a paused, window-blocked or failed rollout
// did not apply it): the planner compared with no earlier revision, so
// each predicted identity is compared with the one old, the role's
// status entry, records for the applied template. A workload old does
// not record restarts (or is created).
func restartsAgainstApplied(role *model.Role, old *status.Role) {
	for i := range role.Workloads {
		w := &role.Workloads[i]
		w.RestartsPods = true
		if old == nil || w.Predicted.Equal(object.Identity{}) {
			continue // nothing to compare: a workload without a prediction may restart
		}
		for _, ws := range old.Workloads {
			if ws.Kind == w.Ref.Kind && ws.Namespace == w.Ref.Namespace && ws.Name == w.Ref.Name {
				w.RestartsPods = !ws.Predicted.Equal(w.Predicted)
			}
		}
	}
}

// writes reports whether the rollout would write to the cluster or
// delete from it: roles to apply, a changed prerequisite step, or, with
// prune on, objects that left git. Windows gate every one of them.
func (r *rollout) writes(app config.App) bool {
	return len(r.apply) > 0 || r.prereqChanged || (app.Prune && len(r.plan.Prune) > 0)
}

// summarize returns the plan's summary with a role changed when this
// rollout applies it (its decided revision is not the one the status
// says is applied), not when its decision against the revision history
// is a change: after a paused, window-blocked or failed rollout the
// history already holds the new revision. roleout plan --config and
// previews print it.
func (r *rollout) summarize() model.Summary {
	return r.plan.Summarize(func(role *model.Role) bool { return r.apply[role.Name] })
}

// logSequence logs the upgrade sequence, one line per role:
// [1] role prefill (upgradeOrder 1, rev 4, hash 6d5f…) update from rev 3.
func (r *rollout) logSequence(log logrus.FieldLogger) {
	for i, role := range r.plan.Roles() {
		d := role.Decision
		state := "unchanged"
		switch {
		case d.Action == revision.Rollback:
			state = fmt.Sprintf("rollback to the template of %s", d.Revision.Name)
		case d.PlanAction() == revision.Install:
			state = "new"
		case d.Action == revision.Update:
			state = fmt.Sprintf("update from rev %d", d.Previous)
		case r.healing[role.Name]:
			state = "heal drift"
		case r.apply[role.Name]:
			state = "retry"
		}
		rlog := log.WithFields(logrus.Fields{"role": role.Name, "revision": d.Revision.Number})
		rlog.Infof("[%d] role %s (upgradeOrder %d, rev %d, hash %s) %s", i+1, role.Name, role.UpgradeOrder, d.Revision.Number, d.Revision.Hash, state)
		if !r.apply[role.Name] {
			continue
		}
		for _, w := range role.Workloads {
			restart := "no restart"
			if w.RestartsPods {
				restart = "restarts pods"
			}
			rlog.Infof("    %s → %s (%s)", w.Ref, w.Predicted.Describe(w.Unverified), restart)
		}
	}
}

// pendingAfter reports whether a wave after wave i has roles to apply.
func (r *rollout) pendingAfter(i int) bool {
	for _, w := range r.plan.Waves[i+1:] {
		for _, role := range w.Roles {
			if r.apply[role.Name] {
				return true
			}
		}
	}
	return false
}

// markPrerequisitesApplied records the prerequisite step as applied.
func (r *rollout) markPrerequisitesApplied() { r.prereq, r.prereqChanged = r.nextPrereq, false }

// markWaveApplied records wave i's roles to apply as applied at their
// decided revisions.
func (r *rollout) markWaveApplied(i int) {
	for _, role := range r.plan.Waves[i].Roles {
		if !r.apply[role.Name] {
			continue
		}
		st, d := r.status(role.Name), role.Decision.Revision
		st.Hash, st.RevisionNumber, st.RevisionName, st.AppliedSourceRevision = d.Hash, d.Number, d.Name, r.revision.String()
		if role.Name == r.held {
			st.AppliedSourceRevision = r.heldSource
		}
		st.Result, st.Message = status.RoleApplied, ""
		if r.healing[role.Name] {
			st.Result = status.RoleHealed
		}
		st.FailedRevisionNumber, st.FailedRevisionName = 0, ""
	}
}

// markWaveFailed records wave i's roles to apply as failed with err.
func (r *rollout) markWaveFailed(i int, err error) {
	for _, role := range r.plan.Waves[i].Roles {
		if r.apply[role.Name] {
			st, d := r.status(role.Name), role.Decision.Revision
			st.Result, st.Message = status.RoleFailed, err.Error()
			st.FailedRevisionNumber, st.FailedRevisionName = d.Number, d.Name
		}
	}
}

func (r *rollout) status(role string) *status.Role {
	for _, st := range r.roles {
		if st.Name == role {
			return st
		}
	}
	return nil
}

// commitMessage says what happened, for the status commit:
// "roleout: llm-serving role decode → rev 5 (main@sha1:1a2b3c4)".
func (r *rollout) commitMessage(app string, err error) string {
	var moved, healed []string
	for _, st := range r.roles {
		switch st.Result {
		case status.RoleApplied:
			moved = append(moved, fmt.Sprintf("%s → rev %d", st.Name, st.RevisionNumber))
		case status.RoleHealed:
			healed = append(healed, st.Name)
		}
	}
	var what string
	switch {
	case len(moved) == 1:
		what = "role " + moved[0]
	case len(moved) > 1:
		what = "roles " + strings.Join(moved, ", ")
	case len(healed) > 0:
	case len(r.drift) > 0 && err == nil:
		what = fmt.Sprintf("drift recorded on %d object(s)", len(r.drift))
	case err == nil && len(r.pruned) == 0:
		what = "unchanged"
	}
	if len(healed) > 0 {
		if what != "" {
			what += "; "
		}
		what += "healed drift of " + strings.Join(healed, ", ")
	}
	if len(r.pruned) > 0 {
		if what != "" {
			what += "; "
		}
		what += fmt.Sprintf("pruned %d object(s)", len(r.pruned))
	}
	if err != nil {
		if what != "" {
			what += "; "
		}
		what += "failed: " + firstLine(err.Error())
	}
	if r.trigger == "rollback" {
		what += " (rollback)"
	}
	return fmt.Sprintf("roleout: %s %s (%s)", app, what, r.revision.Short())
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 120 {
		line = line[:117] + "..."
	}
	return line
}
