package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/status"
)

// A rollback (roleout rollback) is a request in the control ConfigMap that
// the agent serving the app carries out as part of the app's reconcile:
// the role's recorded objects replace git's in the plan, and the rollout
// goes through the same gates (suspension, paused, windows), waves,
// health gates, prune and records as any other. The role is then held at
// that revision, on every later reconcile, until a commit renders the
// role otherwise (its hash in git moves) or roleout resume ends the hold.

// CheckRollback refuses a rollback request that cannot be carried out:
// an app or role without revision n, the revision the role is at, one
// whose Secrets were masked, or one the agent's record in the cluster
// does not hold as the status branch does. The agent checks again when
// it carries the request out.
func (a *Agent) CheckRollback(ctx context.Context, appName, role string, n int64) error {
	app, err := a.cfg.App(appName)
	if err != nil {
		return err
	}
	prev, err := a.readPrevious(ctx, a.log.WithField("app", app.Name), app.Name)
	if err != nil {
		return err
	}
	target, err := findRevision(prev, app.Name, role, n)
	if err == nil {
		err = a.checkClusterRecord(ctx, app, target)
	}
	if err != nil {
		return fmt.Errorf("roll back %s to revision %d refused: %w", role, n, err)
	}
	return nil
}

// RollbackOutcome reads the status branch for what the agent did with the
// app's rollback request made at requestedAt; nil while the agent has not
// recorded it yet.
func (a *Agent) RollbackOutcome(ctx context.Context, appName, requestedAt string) (*status.RollbackResult, error) {
	read, err := a.deps.Status.Read(ctx, appName)
	if err != nil {
		return nil, err
	}
	prev, err := status.Parse(read, appName)
	if err != nil {
		return nil, err
	}
	return prev.Status.RollbackOutcome(requestedAt, read.Commit), nil
}

// rollbackAsked reports whether the control ConfigMap asks something of
// app's rollback that the previous status has not answered: a new
// request, or the end of a hold (roleout resume). It is not held back by
// the backoff of a failed commit.
func (a *Agent) rollbackAsked(app string, prev *status.App) bool {
	req := a.control.Get(app).Rollback
	var last *status.Rollback
	if prev != nil {
		last = prev.Rollback
	}
	if req == nil {
		return last.Active()
	}
	return last == nil || last.RequestedAt != req.RequestedAt
}

// rollbackSettled reports whether the previous status already answers the
// app's rollback request (or its absence): nothing asked anew, and no
// rollback pending or failed, to carry out or retry.
func (a *Agent) rollbackSettled(app string, prev *status.App) bool {
	if a.rollbackAsked(app, prev) {
		return false
	}
	last := prev.Rollback
	return last == nil || (last.State != status.RollbackPending && last.State != status.RollbackFailed)
}

// heldRole is the role a reconcile puts back at a recorded revision.
type heldRole struct {
	role     string
	revision revision.RoleRevision
	// carried: the request was carried out before, so its git hash is
	// recorded.
	carried bool
}

// rollbackRequest sets the run's rollback record from the app's request
// in the control ConfigMap and the previous status, and returns the role
// to hold; nil when there is none, or when the request is refused (the
// record says why; git's version is planned).
func (run *appRun) rollbackRequest(ctx context.Context) *heldRole {
	a, app := run.a, run.app
	req := a.control.Get(app.Name).Rollback
	var last *status.Rollback
	if run.prev.Status != nil {
		last = run.prev.Status.Rollback
	}
	switch {
	case req == nil && last.Active():
		ended := *last
		ended.State, ended.Message = status.RollbackEnded, "ended by roleout resume: git's version of the role is rolled out again"
		run.st.Rollback = &ended
		return nil
	case req == nil || (last != nil && last.RequestedAt == req.RequestedAt && !last.Active()):
		run.st.Rollback = last // ended or refused: kept as the last word on it
		return nil
	}
	rec := &status.Rollback{Role: req.Role, ToRevision: req.Revision, RequestedAt: req.RequestedAt, RequestedBy: req.By, State: status.RollbackPending}
	carried := last != nil && last.RequestedAt == req.RequestedAt && last.RevisionName != ""
	if carried {
		c := *last
		rec = &c
	}
	run.st.Rollback = rec
	target, err := holdRevision(run.prev, app.Name, rec, carried)
	if err == nil {
		err = a.checkClusterRecord(ctx, app, target)
	}
	if err != nil {
		run.refuseRollback(err)
		return nil
	}
	return &heldRole{role: req.Role, revision: target, carried: carried}
}

// refuseRollback records the run's rollback request as refused by err.
func (run *appRun) refuseRollback(err error) {
	rec := run.st.Rollback
	rec.State, rec.Message = status.RollbackRefused, fmt.Sprintf("roll back %s to revision %d refused: %v", rec.Role, rec.ToRevision, err)
	run.log.WithField("role", rec.Role).Error(rec.Message)
}

// holdRevision returns the revision rec puts back: revision ToRevision on
// the first carry-out, then the one it became (by name: its number moved
// to the role's next).
func holdRevision(prev *status.Records, app string, rec *status.Rollback, carried bool) (revision.RoleRevision, error) {
	if !carried {
		return findRevision(prev, app, rec.Role, rec.ToRevision)
	}
	for _, r := range prev.History[rec.Role] {
		if r.Name == rec.RevisionName {
			return r, nil
		}
	}
	return revision.RoleRevision{}, fmt.Errorf("role %s of app %s no longer records revision %s", rec.Role, app, rec.RevisionName)
}

// planHeld plans the run: git's version, with the held role put back at
// its recorded revision while the rollback holds. A commit that renders
// the role otherwise than when the hold began ends it.
func (run *appRun) planHeld(ctx context.Context) (*model.Plan, error) {
	req := planRequest{snap: run.snap, app: run.app, prev: run.prev, cluster: run.cluster}
	held := run.rollbackRequest(ctx)
	if held == nil {
		return run.a.planning().plan(ctx, req)
	}
	git, restored, err := run.a.planning().planRestored(ctx, req, held)
	var refused *restoreError
	if errors.As(err, &refused) {
		run.refuseRollback(refused.err)
		return git, nil
	}
	if err != nil {
		return nil, err
	}
	rec, gitHash := run.st.Rollback, ""
	if r := git.Role(held.role); r != nil {
		gitHash = r.Hash
	}
	switch {
	case !held.carried:
		rec.GitHash = gitHash
	case rec.GitHash != gitHash:
		rec.State, rec.Message = status.RollbackEnded, fmt.Sprintf("ended: %s renders role %s otherwise than when it was rolled back", run.snap.Revision.Short(), held.role)
		run.log.WithField("role", held.role).Info("rollback hold " + rec.Message)
		return git, nil
	}
	if r := restored.Role(held.role); r != nil {
		d := r.Decision.Revision
		rec.RevisionNumber, rec.RevisionName, rec.Hash = d.Number, d.Name, d.Hash
	}
	run.held = held
	return restored, nil
}

// settleRollback records what the run's rollout did with the held role:
// gated or interrupted (pending), failed, or held; a held app's phase is
// RolledBack.
func (run *appRun) settleRollback(err error) {
	rec, st := run.st.Rollback, run.st
	if run.held == nil || !rec.Active() {
		return
	}
	switch {
	case st.Phase == status.PhaseSucceeded:
		rec.State = status.RollbackHeld
		rec.Message = fmt.Sprintf("role %s held at revision %d (%s), rolled back to revision %d: a commit that changes the role, or roleout resume --app %s, ends the hold",
			rec.Role, rec.RevisionNumber, rec.RevisionName, rec.ToRevision, run.app.Name)
		st.Phase = status.PhaseRolledBack
		st.Message = strings.TrimPrefix(st.Message+"; "+rec.Message, "; ")
	case st.Phase == status.PhaseFailed && err != nil:
		rec.State, rec.Message = status.RollbackFailed, err.Error()
	default:
		rec.State, rec.Message = status.RollbackPending, "not carried out yet: "+st.Message
	}
}

// findRevision returns revision n of role, refusing one that cannot be
// re-applied from its record.
func findRevision(prev *status.Records, app, role string, n int64) (revision.RoleRevision, error) {
	if prev.Status == nil {
		return revision.RoleRevision{}, fmt.Errorf("app %s has no status yet: nothing to roll back", app)
	}
	var have []string
	for _, r := range prev.History[role] {
		if r.Number == n {
			if st := prev.Status.Role(role); st != nil && st.RevisionName == r.Name && st.RevisionNumber == n {
				return r, fmt.Errorf("role %s of app %s is already at revision %d", role, app, n)
			}
			if secrets := r.MaskedSecrets(); len(secrets) > 0 {
				return r, fmt.Errorf("revision %d of role %s holds Secrets %s whose values are not recorded: roll back in git instead",
					n, role, strings.Join(secrets, ", "))
			}
			return r, nil
		}
		have = append(have, fmt.Sprint(r.Number))
	}
	return revision.RoleRevision{}, fmt.Errorf("role %s of app %s has no revision %d (recorded: %s)", role, app, n, strings.Join(have, ", "))
}

// replaceRole returns objs without the role's objects in git (drop: by
// identity, as git's plan grouped them, and any that carry the role's
// annotation) plus the recorded objects of the revision to restore,
// marked as the role's (plan.MarkRestored).
func replaceRole(objs []*unstructured.Unstructured, role string, drop map[object.Ref]bool, restore []*unstructured.Unstructured) []*unstructured.Unstructured {
	for _, o := range restore {
		drop[object.RefOf(o)] = true
	}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetAnnotations()[object.RoleAnnotation] == role || drop[object.RefOf(o)] {
			continue
		}
		out = append(out, o)
	}
	// A revision records no source paths (roles[].paths).
	plan.MarkRestored(restore, role)
	return append(out, restore...)
}
