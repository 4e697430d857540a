package agent

import (
	"fmt"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/sources"
)

// rollout is the bookkeeping of one app's rollout: which roles changed,
// the revision each gets, and the status entries updated as waves finish.
type rollout struct {
	plan     *render.Plan
	revision sources.Revision
	// changed holds the roles whose template hash differs from the one
	// last applied.
	changed       map[string]bool
	prereqChanged bool
	// prereq is the applied prerequisite step; nextPrereq replaces it
	// once the step is applied and healthy.
	prereq, nextPrereq *StepStatus
	// roles are the status entries, in apply order.
	roles []*RoleStatus
	// next holds the hash, revision and revision name each changed role
	// gets once its wave is healthy.
	next map[string]RoleStatus
}

// newRollout compares plan with the previous status: a role whose hash
// equals the applied one is unchanged; any other gets revision max+1.
func newRollout(app AppConfig, rev sources.Revision, plan *render.Plan, prev *AppStatus) *rollout {
	r := &rollout{plan: plan, revision: rev, changed: map[string]bool{}, next: map[string]RoleStatus{}}
	r.nextPrereq = &StepStatus{Hash: plan.PrerequisitesHash, Objects: len(plan.Prerequisites)}
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
		st := &RoleStatus{Name: role.Name, UpgradeOrder: role.UpgradeOrder, Objects: len(role.Objects), Result: RoleUnchanged}
		if old := prev.role(role.Name); old != nil {
			st.Hash, st.Revision, st.RevisionName, st.AppliedRevision = old.Hash, old.Revision, old.RevisionName, old.AppliedRevision
		}
		if st.Hash != role.Hash {
			r.changed[role.Name] = true
			st.Result = RolePending
			r.next[role.Name] = RoleStatus{
				Hash:            role.Hash,
				Revision:        st.Revision + 1,
				RevisionName:    fmt.Sprintf("%s-%s-%s", app.Name, role.Name, role.Hash),
				AppliedRevision: rev.String(),
			}
		}
		r.roles = append(r.roles, st)
	}
	return r
}

// logSequence logs the upgrade sequence, one line per role:
// [1] role prefill (upgradeOrder 1, rev 4, hash 6d5f…).
func (r *rollout) logSequence(log logrus.FieldLogger) {
	for i, st := range r.roles {
		rev, hash, state := st.Revision, st.Hash, "unchanged"
		if n, ok := r.next[st.Name]; ok {
			rev, hash, state = n.Revision, n.Hash, "changed"
		}
		log.WithFields(logrus.Fields{"role": st.Name, "revision": rev}).
			Infof("[%d] role %s (upgradeOrder %d, rev %d, hash %s) %s", i+1, st.Name, st.UpgradeOrder, rev, hash, state)
	}
}

// markPrerequisitesApplied records the prerequisite step as applied.
func (r *rollout) markPrerequisitesApplied() { r.prereq, r.prereqChanged = r.nextPrereq, false }

// markWaveApplied records wave i's changed roles as applied at their new
// revisions.
func (r *rollout) markWaveApplied(i int) {
	for _, role := range r.plan.Waves[i].Roles {
		if !r.changed[role.Name] {
			continue
		}
		st, n := r.status(role.Name), r.next[role.Name]
		st.Hash, st.Revision, st.RevisionName, st.AppliedRevision = n.Hash, n.Revision, n.RevisionName, n.AppliedRevision
		st.Result, st.Message = RoleApplied, ""
	}
}

// markWaveFailed records wave i's changed roles as failed with err.
func (r *rollout) markWaveFailed(i int, err error) {
	for _, role := range r.plan.Waves[i].Roles {
		if r.changed[role.Name] {
			st := r.status(role.Name)
			st.Result, st.Message = RoleFailed, err.Error()
		}
	}
}

// markPending records the changed roles of waves from..last as not
// reached.
func (r *rollout) markPending(from int) {
	for _, w := range r.plan.Waves[from:] {
		for _, role := range w.Roles {
			if r.changed[role.Name] {
				r.status(role.Name).Result = RolePending
			}
		}
	}
}

func (r *rollout) status(role string) *RoleStatus {
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
	var moved []string
	for _, st := range r.roles {
		if st.Result == RoleApplied {
			moved = append(moved, fmt.Sprintf("%s → rev %d", st.Name, st.Revision))
		}
	}
	var what string
	switch {
	case len(moved) == 1:
		what = "role " + moved[0]
	case len(moved) > 1:
		what = "roles " + strings.Join(moved, ", ")
	case err == nil:
		what = "unchanged"
	}
	if err != nil {
		if what != "" {
			what += "; "
		}
		what += "failed: " + firstLine(err.Error())
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
