package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// reconcileApp is one reconcile of app at snap, every step in order
// (docs/design.md, "One app"). A step either lets the next run or ends
// the reconcile (end), having recorded on the status branch why when the
// branch must know. Render and plan errors apply nothing.
func (a *Agent) reconcileApp(ctx context.Context, snap sources.Snapshot, app config.App) error {
	run := a.newRun(snap, app)
	// 1. Done at this revision in this process, with nothing to heal or
	// check: not even the status branch is read.
	if run.doneHere() {
		return nil
	}
	// 2. The app's records on the status branch.
	if end, err := run.readRecords(ctx); end {
		return err
	}
	// 3. Settled there at this revision with no drift: watched, done.
	if run.settled(ctx) {
		return nil
	}
	// 4. Failed at this revision lately: waits for its retry time.
	if run.backingOff() {
		return nil
	}
	// 5. The status this reconcile writes, then what it needs before a
	// plan: the app's cluster, a trusted revision, its dependencies done.
	run.makeStatus(ctx)
	if end, err := run.reachCluster(ctx); end {
		return err
	}
	if end, err := run.refuseUntrusted(ctx); end {
		return err
	}
	if end, err := run.dependencies(ctx); end {
		return err
	}
	// 6. The plan (a held rollback's role at its recorded revision), and
	// the rollout's sequence: what each wave applies, heals and prunes.
	plan, err := run.planHeld(ctx)
	if err != nil {
		run.log.WithError(err).Error("render failed: nothing applied")
		return run.fail(ctx, err, fmt.Sprintf("roleout: %s render failed (%s)", app.Name, snap.Revision.Short()))
	}
	run.sequence(ctx, plan)
	// 7. A dry run diffs the plan and stops.
	if a.dryRun {
		return run.dryRun(ctx, plan)
	}
	// 8. Paused, suspended or outside its windows: recorded, not applied.
	if end, err := run.holdBack(ctx); end {
		return err
	}
	// 9. The waves, each gated on health, with a checkpoint between them;
	// then the outcome recorded (appRun.record, and its follow-ups).
	run.reportStart()
	err = run.applyWaves(ctx, run.checkpoint(ctx))
	return run.recordOutcome(ctx, err)
}

// newRun returns the run of app at snap, with the drift, replan and
// drift-check work due for it.
func (a *Agent) newRun(snap sources.Snapshot, app config.App) *appRun {
	return &appRun{
		a: a, app: app, snap: snap, status: a.deps.Status,
		log:   a.log.WithFields(logrus.Fields{"app": app.Name, "commit": snap.Revision.Short()}),
		drift: a.driftFor(app), replan: a.takeReplan(app.Name), check: a.driftCheckDue(app.Name),
	}
}

// doneHere reports whether this process already reconciled the app at
// the run's revision and nothing is due for it.
func (run *appRun) doneHere() bool {
	if !run.drift.pending && !run.replan && !run.check && run.a.isDone(run.app.Name, run.snap.Revision) {
		run.log.Debug("already reconciled at this revision")
		return true
	}
	return false
}

// readRecords reads the app's records; a failed read ends the reconcile
// with nothing applied.
func (run *appRun) readRecords(ctx context.Context) (end bool, err error) {
	run.prev, err = run.a.readPrevious(ctx, run.log, run.app.Name)
	if err != nil {
		run.log.WithError(err).Error("cannot read the app's status: nothing applied")
		return true, err
	}
	return false, nil
}

// settled reports whether the records say the app is settled at the
// run's revision with no drift to heal and no replan asked; then the
// app is watched and done. Only a status the agent signed (or any,
// without a signing key) can say so: after a refused head the app is
// reconciled in full, which records the refusal and restores the branch.
// On the way it looks for drift the watches did not see.
func (run *appRun) settled(ctx context.Context) bool {
	a, app, prev := run.a, run.app, run.prev
	settledAt := func(s *status.App) bool {
		return s != nil && s.SourceRevision == run.snap.Revision.String() && status.Settled(s.Phase) && a.rollbackSettled(app.Name, s)
	}
	if s := prev.Status; !run.drift.pending && settledAt(s) {
		run.drift = a.unwatchedDrift(ctx, app, prev)
		if !run.drift.pending && run.check && prev.Refused == nil {
			run.drift = a.comparedDrift(ctx, app, run.snap, prev)
		}
	}
	s := prev.Status
	if prev.Refused != nil || !settledAt(s) || run.drift.pending || run.replan {
		return false
	}
	run.log.Debug("already reconciled at this revision")
	a.mu.Lock()
	a.settle(app.Name, s, true)
	a.mu.Unlock()
	a.watchApp(ctx, app, nil, prev.Inventory, recordedObjects(prev))
	return true
}

// backingOff reports whether the app failed at this revision lately and
// waits for its retry time (a rollback asked of it does not wait).
func (run *appRun) backingOff() bool {
	a, prev, snap := run.a, run.prev, run.snap
	attempt, wait := a.retry(prev, snap.Revision)
	run.attempt = attempt
	if wait && !a.rollbackAsked(run.app.Name, prev.Status) {
		s := prev.Status
		run.log.WithField("attempts", s.Attempts).Infof("commit %s failed %d time(s) in a row; retrying at %s; still waiting for: %s",
			snap.Revision.Short(), s.Attempts, s.RetryAfter.UTC().Format(time.RFC3339), s.Message)
		a.mu.Lock()
		a.state(run.app.Name).result = s
		a.mu.Unlock()
		return true
	}
	if attempt > 1 {
		run.log.WithField("attempt", attempt).Infof("retrying commit %s (attempt %d); last time: %s", snap.Revision.Short(), attempt, prev.Status.Message)
	}
	return false
}

// makeStatus makes the status this reconcile writes.
func (run *appRun) makeStatus(ctx context.Context) {
	a, app, snap := run.a, run.app, run.snap
	run.st = &status.App{
		APIVersion: config.APIVersion, Kind: status.Kind, App: app.Name,
		Source: a.sourceURL, Path: app.Path, SourceRevision: snap.Revision.String(),
		HistoryRewritten: a.rewritten(ctx, run.log, run.prev.Status, snap.Revision),
		StatusBranch:     run.prev.Refused,
		Attempts:         run.attempt,
	}
}

// reachCluster connects the app's cluster; one it cannot reach ends the
// reconcile, recorded.
func (run *appRun) reachCluster(ctx context.Context) (end bool, err error) {
	if run.cluster, err = run.a.clusterFor(ctx, run.app); err != nil {
		run.log.WithError(err).Error("cannot reach the app's cluster: nothing applied")
		return true, run.fail(ctx, err, fmt.Sprintf("roleout: %s cluster unreachable (%s)", run.app.Name, run.snap.Revision.Short()))
	}
	return false, nil
}

// refuseUntrusted ends the reconcile of a snapshot that is not trusted,
// recorded: it is previewed, never applied.
func (run *appRun) refuseUntrusted(ctx context.Context) (end bool, err error) {
	snap := run.snap
	if snap.Trust == sources.Trusted {
		return false, nil
	}
	err = fmt.Errorf("source revision %s is not trusted (%q): previewed, never applied", snap.Revision.Short(), snap.Trust)
	run.log.WithError(err).Error("nothing applied")
	return true, run.fail(ctx, err, fmt.Sprintf("roleout: %s refused an untrusted revision (%s)", run.app.Name, snap.Revision.Short()))
}

// dependencies ends the reconcile while an app of dependsOn is not done
// at this revision (recorded as WaitingForDependencies), or cannot be
// known.
func (run *appRun) dependencies(ctx context.Context) (end bool, err error) {
	waiting, err := run.a.waitingOn(ctx, run.log, run.app, run.snap)
	if err != nil {
		return true, run.fail(ctx, err, fmt.Sprintf("roleout: %s dependencies unknown (%s)", run.app.Name, run.snap.Revision.Short()))
	}
	if len(waiting) > 0 {
		return true, run.waitForDependencies(ctx, waiting)
	}
	return false, nil
}

// sequence makes the rollout of plan: what each wave applies (the held
// role kept at its revision), what it heals, and logs it.
func (run *appRun) sequence(ctx context.Context, plan *model.Plan) {
	run.steps = newRollout(run.snap.Revision, plan, run.prev.Status)
	if h := run.held; h != nil {
		run.steps.hold(h.role, h.revision.Source)
	}
	run.a.crossCheckUnchanged(ctx, run.log, run.app, run.steps)
	run.steps.planHeal(run.drift)
	run.st.Drift = run.drift.all
	run.steps.logSequence(run.log)
}

// holdBack ends the reconcile while the app is paused or suspended, or
// outside its windows with something to write, recording why.
func (run *appRun) holdBack(ctx context.Context) (end bool, err error) {
	a, app, log, st, steps := run.a, run.app, run.log, run.st, run.steps
	short := run.snap.Revision.Short()
	if phase, msg, word := a.held(app); phase != "" {
		st.Phase, st.Message = phase, msg
		st.Prerequisites, st.Roles = steps.prereq, steps.roles
		run.settleRollback(nil)
		return true, run.report(ctx, fmt.Sprintf("roleout: %s %s (%s)", app.Name, word, short))
	}
	open, next, err := a.windowOpen(app)
	if err != nil {
		return true, err
	}
	if open || !steps.writes(app) {
		return false, nil
	}
	st.Phase, st.Message = status.PhaseWaiting, "outside the app's rollout windows: planned, nothing applied"
	if !next.IsZero() {
		st.Message += "; the next window opens at " + next.UTC().Format(time.RFC3339)
	}
	log.Info(st.Message)
	st.Prerequisites, st.Roles = steps.prereq, steps.roles
	run.settleRollback(nil)
	return true, run.report(ctx, fmt.Sprintf("roleout: %s waiting for a rollout window (%s)", app.Name, short))
}

// recordOutcome records what applyWaves did, err: Succeeded, Failed,
// Removed, or Progressing when a newer commit superseded the rollout.
func (run *appRun) recordOutcome(ctx context.Context, err error) error {
	a, app, log, st, steps := run.a, run.app, run.log, run.st, run.steps
	st.Prerequisites, st.Roles = steps.prereq, steps.roles
	var superseded *SupersededError
	defer func() { a.countRollout(app, st, steps) }()
	switch {
	case errors.As(err, &superseded):
		st.Phase, st.Message = status.PhaseProgressing, err.Error()
		log.Info(err.Error())
		run.settleRollback(err)
		return errors.Join(err, run.report(ctx, steps.commitMessage(app.Name, nil)+" [superseded]"))
	case err != nil:
		st.Phase, st.Message = status.PhaseFailed, err.Error()
	case app.Removed:
		st.Phase, st.Message, st.Drift = status.PhaseRemoved, removedMessage(app), nil
	default:
		st.Phase = status.PhaseSucceeded
		if app.HealsDrift() {
			st.Drift = nil
		}
		st.Message = driftMessage(app, st.Drift)
	}
	run.settleRollback(err)
	err = errors.Join(err, run.report(ctx, steps.commitMessage(app.Name, err)))
	if err == nil && app.Removed {
		a.removed(app.Name)
	}
	return err
}

// countRollout updates the rollout metrics after a rollout that did
// something.
func (a *Agent) countRollout(app config.App, st *status.App, r *rollout) {
	if len(r.waves) == 0 && len(r.pruned) == 0 && st.Phase != status.PhaseFailed {
		return
	}
	result := st.Phase
	if st.Phase == status.PhaseProgressing {
		result = "Superseded"
	}
	a.metrics.rollouts.WithLabelValues(app.Name, result).Inc()
	if status.Settled(st.Phase) {
		a.metrics.lastApplied.WithLabelValues(app.Name).Set(float64(time.Now().Unix()))
	}
}

// SupersededError stops a rollout between waves because the source moved
// on: the agent plans again from the newer commit.
type SupersededError struct {
	Wave int
	By   sources.SourceRevision
}

func (e *SupersededError) Error() string {
	return fmt.Sprintf("stopped after wave %d: %s arrived; planning again from it", e.Wave+1, e.By.Short())
}

// dryRun diffs the plan against the app's cluster and logs what a
// rollout would change; nothing is written.
func (r *appRun) dryRun(ctx context.Context, plan *model.Plan) error {
	log := r.log
	rep, err := diff.Live(ctx, r.cluster, DiffTarget(r.app), plan)
	if err != nil {
		return fmt.Errorf("dry run: %w", err)
	}
	for _, s := range rep.Steps {
		for _, o := range s.Objects {
			if o.Change != model.NoChange {
				log.WithFields(logrus.Fields{"step": s.Role, "object": o.Object.String()}).Infof("dry run: would %s", o.Change)
			}
		}
	}
	c := rep.Summary
	log.WithFields(logrus.Fields{"create": c.Create, "update": c.Update, "delete": c.Delete, "unchanged": c.Unchanged}).Info("dry run: nothing written")
	return nil
}

// rewritten reports a force-push of the followed branch since the
// revision the previous status records, and warns about it.
func (a *Agent) rewritten(ctx context.Context, log logrus.FieldLogger, prev *status.App, now sources.SourceRevision) *status.Rewrite {
	if prev == nil {
		return nil
	}
	if prev.HistoryRewritten != nil && prev.SourceRevision == now.String() {
		return prev.HistoryRewritten
	}
	old, err := sources.ParseRevision(prev.SourceRevision)
	if err != nil || old.Ref != now.Ref || old.Ref == "" || old.Commit == now.Commit {
		return nil
	}
	if ff, err := a.deps.Fetcher.IsAncestor(ctx, old, now); err != nil || ff {
		return nil
	}
	log.WithFields(logrus.Fields{"from": old.Short(), "to": now.Short()}).Warn("history rewritten: the branch was force-pushed; following its new head")
	return &status.Rewrite{From: old.String(), To: now.String()}
}

// windowOpen reports whether the app's rollout windows allow a rollout
// now, and when the next one opens.
func (a *Agent) windowOpen(app config.App) (bool, time.Time, error) {
	if len(app.Windows) == 0 {
		return true, time.Time{}, nil
	}
	ws, err := config.ParseWindows(app.Windows)
	if err != nil {
		return false, time.Time{}, err
	}
	now := a.deps.now()
	if ws.OpenAt(now) {
		return true, time.Time{}, nil
	}
	return false, ws.NextOpen(now), nil
}

// isDone reports whether this agent already reconciled app at rev with
// success: an idle poll then reads nothing, not even the status branch.
func (a *Agent) isDone(app string, rev sources.SourceRevision) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.apps[app]
	return !a.dryRun && s != nil && s.done == rev.String()
}

// retry returns which attempt at rev this reconcile is (1 unless the
// previous status failed at rev) and whether it must wait: the running
// loop (backoffRetries) retries a failed commit only after its
// RetryAfter. roleout run --once never waits.
func (a *Agent) retry(prev *status.Records, rev sources.SourceRevision) (attempt int, wait bool) {
	s := prev.Status
	if s == nil || prev.Refused != nil || s.SourceRevision != rev.String() || s.Phase != status.PhaseFailed {
		return 1, false
	}
	attempt = max(s.Attempts, 1) + 1
	return attempt, a.backoffRetries && s.RetryAfter != nil && a.deps.now().Before(s.RetryAfter.Time)
}
