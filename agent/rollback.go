package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/status"
)

// RollbackResult is what Rollback did (roleout rollback --output json).
type RollbackResult struct {
	App  string `json:"app"`
	Role string `json:"role"`
	// ToRevision is the recorded revision restored (--to-revision);
	// RevisionNumber, RevisionName and Hash the role revision it became, the
	// role's next number.
	ToRevision     int64  `json:"toRevision"`
	RevisionNumber int64  `json:"revision"`
	RevisionName   string `json:"revisionName"`
	Hash           string `json:"hash"`
	// Phase is the app's phase after the rollback (Succeeded or Failed),
	// Result the role's (Applied or Failed), Message why it failed.
	Phase   string `json:"phase"`
	Result  string `json:"result"`
	Message string `json:"message,omitempty"`
	// StatusCommit is the status-branch commit that records the rollback;
	// "" when none was made.
	StatusCommit string `json:"statusCommit,omitempty"`
}

// Rollback re-applies revision n of role from the app's history: the
// recorded objects become the role's next revision (number max+1),
// applied through the role's wave and health gate; no other role is
// touched. The next commit that changes the app brings git's version back,
// as with Argo CD's rollback; pause the app or revert in git to keep it.
// The result is nil when Rollback stopped before applying anything; once
// the rollout was tried, it is set, with the error of a failed one.
func (a *Agent) Rollback(ctx context.Context, appName, role string, n int64) (*RollbackResult, error) {
	app, err := a.cfg.App(appName)
	if err != nil {
		return nil, err
	}
	log := a.log.WithFields(logrus.Fields{"app": app.Name, "role": role})
	// Keep the hash of the status commit for the result.
	rec := &commitRecorder{StatusWriter: a.deps.Status}
	run := &appRun{a: a, app: app, log: log, status: rec}
	if run.cluster, err = a.clusterFor(ctx, app); err != nil { // the app's own cluster
		return nil, err
	}
	if run.prev, err = a.readPrevious(ctx, log, app.Name); err != nil {
		return nil, err
	}
	target, err := findRevision(run.prev, app.Name, role, n)
	if err != nil {
		return nil, err
	}
	if err := a.checkClusterRecord(ctx, app, target); err != nil {
		return nil, fmt.Errorf("roll back %s to revision %d refused: %w", role, n, err)
	}
	if run.snap, err = a.fetchFollowed(ctx); err != nil {
		return nil, fmt.Errorf("poll source: %w", err)
	}
	plan, err := a.planning().plan(ctx, planRequest{snap: run.snap, app: app, prev: run.prev, cluster: run.cluster,
		restore: &restore{role: role, revision: target}})
	if err != nil {
		return nil, fmt.Errorf("roll back %s to revision %d refused: %w", role, n, err)
	}
	run.steps = newRollout(run.snap.Revision, plan, run.prev.Status)
	run.steps.trigger = "rollback"
	if err := run.steps.only(role, run.prev.Status); err != nil {
		return nil, err
	}
	run.steps.logSequence(log)
	run.st = &status.App{APIVersion: config.APIVersion, Kind: status.Kind, App: app.Name, Source: a.sourceURL, Path: app.Path,
		SourceRevision: run.prev.Status.SourceRevision, Phase: status.PhaseSucceeded, StatusBranch: run.prev.Refused}
	run.app.Prune = false // a rollback applies one role; it never deletes
	err = run.applyWaves(ctx, nil)
	st := run.st
	st.Prerequisites, st.Roles = run.steps.prereq, run.steps.roles
	if err != nil {
		st.Phase, st.Message = status.PhaseFailed, err.Error()
	}
	msg := run.steps.commitMessage(app.Name, err)
	msg = strings.TrimSuffix(msg, fmt.Sprintf(" (%s)", run.snap.Revision.Short())) + fmt.Sprintf(" (rollback to rev %d)", n)
	err = errors.Join(err, run.report(ctx, msg))
	res := &RollbackResult{App: app.Name, Role: role, ToRevision: n, Phase: st.Phase, Message: st.Message, StatusCommit: rec.last}
	for _, r := range plan.Roles() {
		if r.Name == role {
			d := r.Decision.Revision
			res.RevisionNumber, res.RevisionName, res.Hash = d.Number, d.Name, d.Hash
		}
	}
	if rs := st.Role(role); rs != nil {
		res.Result = rs.Result
	}
	return res, err
}

// commitRecorder is a status store that keeps the hash of the last
// commit it made.
type commitRecorder struct {
	StatusWriter
	last string
}

// Commit commits files and keeps the new commit's hash.
func (c *commitRecorder) Commit(ctx context.Context, files map[string][]byte, msg string) (string, error) {
	hash, err := c.StatusWriter.Commit(ctx, files, msg)
	if err == nil {
		c.last = hash
	}
	return hash, err
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

// replaceRole returns objs without role's objects (by their role
// annotation) plus the recorded objects of the revision to restore,
// marked as the role's (render.MarkRestored). Objects that joined the
// role through its config criteria are matched by identity.
func replaceRole(objs []*unstructured.Unstructured, role string, restore []*unstructured.Unstructured) []*unstructured.Unstructured {
	drop := map[object.Ref]bool{}
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
	render.MarkRestored(restore, role)
	return append(out, restore...)
}

// only limits the rollout to role, keeping every other role's status as
// the previous status recorded it.
func (r *rollout) only(role string, prev *status.App) error {
	found := false
	for name := range r.apply {
		if name != role {
			delete(r.apply, name)
		} else {
			found = true
		}
	}
	if !found {
		return fmt.Errorf("role %s would not change", role)
	}
	r.prereqChanged = false
	for i, st := range r.roles {
		if st.Name == role {
			continue
		}
		if old := prev.Role(st.Name); old != nil {
			r.roles[i] = old
		}
	}
	return nil
}
