package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// reconcileApp takes one app from the snapshot to the cluster and records
// the outcome on the status branch. Render and plan errors apply nothing.
func (a *Agent) reconcileApp(ctx context.Context, snap sources.Snapshot, app config.App) error {
	log := a.log.WithFields(logrus.Fields{"app": app.Name, "commit": snap.Revision.Short()})
	drift := a.driftFor(app)
	replan := a.takeReplan(app.Name)
	check := a.driftCheckDue(app.Name)
	if !drift.pending && !replan && !check && a.isDone(app.Name, snap.Revision) {
		log.Debug("already reconciled at this revision")
		return nil
	}
	prev, err := a.readPrevious(ctx, log, app.Name)
	if err != nil {
		log.WithError(err).Error("cannot read the app's status: nothing applied")
		return err
	}
	settled := func(s *status.App) bool {
		return s != nil && s.SourceRevision == snap.Revision.String() && status.Settled(s.Phase) && a.rollbackSettled(app.Name, s)
	}
	if s := prev.Status; !drift.pending && settled(s) {
		drift = a.unwatchedDrift(ctx, app, prev)
		if !drift.pending && check && prev.Refused == nil {
			drift = a.comparedDrift(ctx, app, snap, prev)
		}
	}
	// Only a status the agent signed (or any, without a signing key) can
	// say this revision is done; after a refused head the app is
	// reconciled in full, which records the refusal and restores the
	// branch.
	if s := prev.Status; prev.Refused == nil && settled(s) && !drift.pending && !replan {
		log.Debug("already reconciled at this revision")
		a.mu.Lock()
		a.results[app.Name] = s
		a.done[app.Name] = s.SourceRevision
		a.mu.Unlock()
		a.watchApp(ctx, app, nil, prev.Inventory, recordedObjects(prev))
		return nil
	}
	attempt, wait := a.retry(prev, snap.Revision)
	if wait && !a.rollbackAsked(app.Name, prev.Status) {
		s := prev.Status
		log.WithField("attempts", s.Attempts).Infof("commit %s failed %d time(s) in a row; retrying at %s; still waiting for: %s",
			snap.Revision.Short(), s.Attempts, s.RetryAfter.UTC().Format(time.RFC3339), s.Message)
		a.mu.Lock()
		a.results[app.Name] = s
		a.mu.Unlock()
		return nil
	}
	if attempt > 1 {
		log.WithField("attempt", attempt).Infof("retrying commit %s (attempt %d); last time: %s", snap.Revision.Short(), attempt, prev.Status.Message)
	}
	st := &status.App{
		APIVersion: config.APIVersion, Kind: status.Kind, App: app.Name,
		Source: a.sourceURL, Path: app.Path, SourceRevision: snap.Revision.String(),
		HistoryRewritten: a.rewritten(ctx, log, prev.Status, snap.Revision),
		StatusBranch:     prev.Refused,
		Attempts:         attempt,
	}
	run := &appRun{a: a, app: app, log: log, snap: snap, prev: prev, st: st, status: a.deps.Status}
	return run.reconcile(ctx, drift)
}

// reconcile reaches the app's cluster, refuses an untrusted snapshot,
// plans it and rolls the plan out (rollOut); a dry run diffs instead.
func (run *appRun) reconcile(ctx context.Context, drift driftWork) error {
	a, app, log, snap := run.a, run.app, run.log, run.snap
	var err error
	if run.cluster, err = a.clusterFor(ctx, app); err != nil {
		log.WithError(err).Error("cannot reach the app's cluster: nothing applied")
		return run.fail(ctx, err, fmt.Sprintf("roleout: %s cluster unreachable (%s)", app.Name, snap.Revision.Short()))
	}
	if snap.Trust != sources.Trusted {
		err := fmt.Errorf("source revision %s is not trusted (%q): previewed, never applied", snap.Revision.Short(), snap.Trust)
		log.WithError(err).Error("nothing applied")
		return run.fail(ctx, err, fmt.Sprintf("roleout: %s refused an untrusted revision (%s)", app.Name, snap.Revision.Short()))
	}
	if waiting, err := a.waitingOn(ctx, log, app, snap); err != nil {
		return run.fail(ctx, err, fmt.Sprintf("roleout: %s dependencies unknown (%s)", app.Name, snap.Revision.Short()))
	} else if len(waiting) > 0 {
		return run.waitForDependencies(ctx, waiting)
	}
	plan, err := run.planHeld(ctx)
	if err != nil {
		log.WithError(err).Error("render failed: nothing applied")
		return run.fail(ctx, err, fmt.Sprintf("roleout: %s render failed (%s)", app.Name, snap.Revision.Short()))
	}
	run.steps = newRollout(snap.Revision, plan, run.prev.Status)
	if h := run.held; h != nil {
		run.steps.hold(h.role, h.revision.Source)
	}
	a.crossCheckUnchanged(ctx, log, app, run.steps)
	run.steps.planHeal(drift)
	run.st.Drift = drift.all
	run.steps.logSequence(log)
	if a.dryRun {
		return run.dryRun(ctx, plan)
	}
	return run.rollOut(ctx)
}

// rollOut holds the rollout while the app is paused, suspended or outside
// its windows (recording why), else applies its waves and records the
// outcome: Succeeded, Failed, or Progressing when a newer commit
// superseded it.
func (run *appRun) rollOut(ctx context.Context) error {
	a, app, log, st, steps := run.a, run.app, run.log, run.st, run.steps
	short := run.snap.Revision.Short()
	if phase, msg, word := a.held(app); phase != "" {
		st.Phase, st.Message = phase, msg
		st.Prerequisites, st.Roles = steps.prereq, steps.roles
		run.settleRollback(nil)
		return run.report(ctx, fmt.Sprintf("roleout: %s %s (%s)", app.Name, word, short))
	}
	if open, next, err := a.windowOpen(app); err != nil {
		return err
	} else if !open && steps.writes(app) {
		st.Phase, st.Message = status.PhaseWaiting, "outside the app's rollout windows: planned, nothing applied"
		if !next.IsZero() {
			st.Message += "; the next window opens at " + next.UTC().Format(time.RFC3339)
		}
		log.Info(st.Message)
		st.Prerequisites, st.Roles = steps.prereq, steps.roles
		run.settleRollback(nil)
		return run.report(ctx, fmt.Sprintf("roleout: %s waiting for a rollout window (%s)", app.Name, short))
	}
	run.reportStart()
	err := run.applyWaves(ctx, run.checkpoint(ctx))
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
func (r *appRun) dryRun(ctx context.Context, plan *render.Plan) error {
	log := r.log
	rep, err := diff.Live(ctx, r.cluster, DiffTarget(r.app), plan)
	if err != nil {
		return fmt.Errorf("dry run: %w", err)
	}
	for _, s := range rep.Steps {
		for _, o := range s.Objects {
			if o.Change != apply.NoChange {
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
	return !a.dryRun && a.done[app] == rev.String()
}

// applyWaves applies the prerequisite step and then each wave's changed
// roles, waiting for every wave to be healthy before the next starts.
//
// After every wave that leaves work for later waves, checkpoint (when not
// nil) records progress and may stop the rollout: a newer commit arrived.
func (run *appRun) applyWaves(ctx context.Context, checkpoint func(wave int) error) error {
	a, log, app, r := run.a, run.log, run.app, run.steps
	// An object that already carries the hash of what this rollout applies
	// (a wave interrupted by a crash, an unchanged object of a changed
	// role) is not written again.
	opts := a.applyOptions(app)
	opts.Heal = r.healObjs
	// Drift the watch could not see (made while no agent ran) is healed
	// when its role is rolled out, as selfHeal allows.
	opts.HealTaken = app.HealsDrift()
	if err := run.checkOwners(ctx); err != nil {
		return err
	}
	defer a.flights.land(app.Name)
	if r.prereqChanged {
		var ready func(int, int)
		opts.Progress, ready = run.takeOff(0, 0, nil, len(r.plan.Prerequisites))
		if err := run.applyStep(ctx, log.WithField("step", "prerequisites"), r.plan.Prerequisites, opts, ready); err != nil {
			return fmt.Errorf("prerequisites: %w", err)
		}
		r.markPrerequisitesApplied()
		run.cluster.ResetMapper()
	}
	for i, wave := range r.plan.Waves {
		var objs []*unstructured.Unstructured
		var changed []string
		for _, role := range wave.Roles {
			if r.apply[role.Name] {
				objs = append(objs, object.WithLabel(role.Objects, object.RoleLabel, role.Name)...)
				changed = append(changed, role.Name)
			}
		}
		if len(objs) == 0 {
			continue
		}
		wlog := log.WithFields(logrus.Fields{"wave": i + 1, "upgradeOrder": wave.UpgradeOrder, "roles": changed})
		waveStarted := time.Now()
		var ready func(int, int)
		opts.Progress, ready = run.takeOff(i+1, wave.UpgradeOrder, changed, len(objs))
		err := run.applyStep(ctx, wlog, objs, opts, ready)
		r.recordWave(i, waveStarted, err)
		if err != nil {
			r.markWaveFailed(i, err)
			return fmt.Errorf("wave %d (upgradeOrder %d): %w", i+1, wave.UpgradeOrder, err)
		}
		r.markWaveApplied(i)
		var applied []*render.Role
		for _, role := range wave.Roles {
			if r.apply[role.Name] {
				applied = append(applied, role)
			}
		}
		run.observeWorkloads(ctx, wlog, applied)
		if checkpoint != nil && r.pendingAfter(i) {
			if err := checkpoint(i); err != nil {
				return err
			}
		}
	}
	return run.prune(ctx)
}

// prune deletes, after the last wave, the objects that left git: only
// those in the app's inventory that still carry its label, in reverse
// apply order, waiting for each to be gone. Namespaces, CRDs and PVCs
// only with prunePersistent or their annotation roleout.dev/prune: "true";
// a skipped object stays in the cluster and leaves the inventory, as in
// Flux.
func (run *appRun) prune(ctx context.Context) error {
	a, log, app, r := run.a, run.log, run.app, run.steps
	plan := r.plan
	if !app.Prune || len(plan.Prune) == 0 {
		if len(plan.Prune) > 0 {
			log.WithField("objects", len(plan.Prune)).Info("objects left git; prune is off for this app, so they stay")
		}
		return nil
	}
	refs := make([]object.Ref, len(plan.Prune))
	for i, e := range plan.Prune {
		refs[i] = e.Ref
	}
	a.drift.Release(app.Name, refs) // their deletion is not drift
	results, err := run.cluster.Prune(ctx, refs, pruneOptions(app, a.cfg.AppField(app, "prunePersistent")))
	for _, res := range results {
		plog := log.WithField("object", res.Object.String())
		if res.Action == apply.Skipped {
			plog.Infof("prune skipped: %s", res.Reason)
		} else if res.Err == nil {
			plog.Info("pruned")
			r.pruned = append(r.pruned, res.Object.String())
		}
	}
	if err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	return nil
}

// applyStep applies objs and waits until they are healthy, telling ready
// (when not nil) how many are after each look.
func (run *appRun) applyStep(ctx context.Context, log logrus.FieldLogger, objs []*unstructured.Unstructured, opts apply.ApplyOptions, ready func(n, total int)) error {
	a, app := run.a, run.app
	started := time.Now()
	log.WithField("objects", len(objs)).Info("applying")
	results, err := run.cluster.Apply(ctx, objs, opts)
	a.drift.Applied(app.Name, results)
	counts := map[apply.Action]int{}
	for _, res := range results {
		counts[res.Action]++
		a.metrics.objects.WithLabelValues(app.Name, string(res.Action)).Inc()
		olog := log.WithField("object", res.Object.String())
		switch res.Action {
		case apply.Unchanged:
			olog.Debug(res.Action)
		case apply.Failed:
			olog.WithError(res.Err).Error(res.Action)
		default:
			olog.Info(res.Action)
		}
	}
	if err != nil {
		return err
	}
	rules, err := a.cfg.HealthRules(app)
	if err != nil {
		return err // config.Parse compiled them already
	}
	if err := run.cluster.WaitHealthy(ctx, objs, apply.WaitOptions{Timeout: app.Timeout.Duration, Progress: ready, Rules: rules}); err != nil {
		return err
	}
	a.live.Progressed()
	log.WithFields(logrus.Fields{"created": counts[apply.Created], "configured": counts[apply.Configured] + counts[apply.Recreated],
		"unchanged": counts[apply.Unchanged], "elapsed": time.Since(started).Round(time.Millisecond)}).Info("healthy")
	return nil
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
