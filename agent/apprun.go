package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sharding"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/statusstore"
)

// appRun is one app's reconcile (or rollback, or refusal record): the
// values every step of it reads once — the agent, the app, its logger,
// the app's cluster, where its status goes, the snapshot, what the status
// branch held, the status being written and the rollout being applied
// (nil before a plan exists). The agent's own cluster, which holds every
// app's role revisions, stays a.deps.Cluster.
type appRun struct {
	a   *Agent
	app config.App
	log logrus.FieldLogger
	// cluster is the app's own cluster (Agent.clusterFor); nil until it
	// is reached.
	cluster Cluster
	// status is the status branch the run commits to.
	status StatusWriter
	snap   sources.Snapshot
	prev   *status.Records
	st     *status.App
	steps  *rollout
	// held is the role a rollback holds at a recorded revision; nil for
	// none.
	held *heldRole
	// drift is the drift due for the app; replan and check say a replan
	// was asked and a drift check against the cluster is due; attempt is
	// this reconcile's attempt at the revision (reconcileApp's steps).
	drift         driftWork
	replan, check bool
	attempt       int
}

// report commits the run's status, with the rollout's records, to the
// status branch.
func (r *appRun) report(ctx context.Context, msg string) error {
	return r.commit(ctx, r.st, msg, false)
}

// fail records err, met before anything was applied, as the app's failed
// status, keeping the roles of the previous one.
func (r *appRun) fail(ctx context.Context, err error, msg string) error {
	r.st.Phase, r.st.Message = status.PhaseFailed, err.Error()
	if s := r.prev.Status; s != nil {
		r.st.Prerequisites, r.st.Roles = s.Prerequisites, s.Roles
		if r.st.Rollback == nil {
			// Not reached this time: a held rollback stays held.
			r.st.Rollback = s.Rollback
		}
	}
	r.steps = nil
	return errors.Join(err, r.report(ctx, msg))
}

// checkpoint returns the function the rollout calls after each wave that
// leaves work: it commits the progress so far (phase Progressing), so a
// restarted agent resumes at the next wave, and stops the rollout when the
// followed ref has moved to a newer commit or the app was suspended. The
// progress is recorded even when ctx is cancelled meanwhile (the agent is
// stopping): what was applied must be on the status branch. Under
// dynamic sharding that record still stops before another replica may
// hold the app (sharding.Outlive).
func (r *appRun) checkpoint(ctx context.Context) func(int) error {
	ctx = sharding.Outlive(ctx)
	steps := r.steps
	return func(wave int) error {
		progress := *r.st
		progress.Phase, progress.Message = status.PhaseProgressing, fmt.Sprintf("wave %d of %d done", wave+1, len(steps.plan.Waves))
		progress.Prerequisites, progress.Roles = steps.prereq, steps.roles
		msg := steps.commitMessage(r.app.Name, nil) + fmt.Sprintf(" [wave %d/%d]", wave+1, len(steps.plan.Waves))
		if err := r.commit(ctx, &progress, msg, true); err != nil {
			return err
		}
		if err := r.a.suspendedStop(r.app.Name, wave, r.snap.Revision); err != nil {
			return err
		}
		head, err := r.a.deps.Fetcher.Head(ctx)
		if err == nil && head.Commit != r.snap.Revision.Commit {
			return &SupersededError{Wave: wave, By: head}
		}
		return nil
	}
}

// commit writes st and the run's files to the status branch. progress is
// a checkpoint between waves: the rollout's history record, its drift
// report and the watch of what it applied wait for its end.
//
// When ctx carries a pass's lateRecords, a final record of a rollout
// that succeeded goes off the pass's worker slot: held for the pass's
// flush when it may wait (recordsLate), else written at once in the
// background. The app counts as done meanwhile, so that the apps
// depending on it go on; a write that fails undoes that, and the next
// poll records it.
func (r *appRun) commit(ctx context.Context, st *status.App, msg string, progress bool) error {
	if l := lateRecordsOf(ctx); l != nil && !progress && st.Phase == status.PhaseSucceeded {
		r.a.mu.Lock()
		r.a.settle(r.app.Name, st, true)
		r.a.mu.Unlock()
		write := func() error {
			err := r.record(ctx, st, msg, false)
			if err != nil {
				r.a.mu.Lock()
				r.a.state(r.app.Name).done = "" // the next poll records it
				r.a.mu.Unlock()
			}
			return err
		}
		if r.recordsLate(st, progress) {
			l.hold(r.app.Name, write)
		} else {
			l.start(r.app.Name, write)
		}
		return nil
	}
	r.a.mu.Lock()
	r.a.settle(r.app.Name, st, false)
	r.a.mu.Unlock()
	return r.record(ctx, st, msg, progress)
}

// record writes st and the run's files (commit); the app is done once
// they are on the branch.
func (r *appRun) record(ctx context.Context, st *status.App, msg string, progress bool) error {
	a, app, log := r.a, r.app, r.log
	// Done (no poll reads the branch again at this revision) only once
	// the status is recorded: a failed commit is tried again next poll.
	recorded := func() {
		if status.Settled(st.Phase) {
			a.mu.Lock()
			a.state(app.Name).done = st.SourceRevision
			a.mu.Unlock()
		}
	}
	if st.Phase == status.PhaseFailed && a.backoffRetries {
		at := metav1.NewTime(a.deps.now().Add(a.deps.Backoffs.Commit.After(st.Attempts)).Truncate(time.Second))
		st.RetryAfter = &at
	} else {
		st.Attempts, st.RetryAfter = 0, nil
	}
	files, err := statusUpdate(app, st, r.steps, status.Settled(st.Phase), progress).Files(app.Name, r.prev)
	if err != nil {
		return err
	}
	r.dropUntrustedPreviews(ctx, files)
	_, err = r.status.Commit(ctx, files, a.signed(msg))
	if err == nil || errors.Is(err, statusstore.ErrNoChange) {
		recorded()
	}
	if errors.Is(err, statusstore.ErrNoChange) {
		if !progress {
			r.driftReported(ctx, st)
		}
		return nil
	}
	if err != nil {
		log.WithError(err).Error("status not recorded")
		return fmt.Errorf("record status: %w", err)
	}
	log.WithField("phase", st.Phase).Info(msg)
	w := written{st: st, files: files, progress: progress}
	for _, after := range afterRecord {
		after(r, ctx, w)
	}
	return nil
}

// written is a status write of a run, as its listeners see it: the
// status, the files committed with it, and whether it was a checkpoint
// between waves.
type written struct {
	st       *status.App
	files    map[string][]byte
	progress bool
}

// afterRecord are the follow-ups of a status write that reached the
// branch, in order.
var afterRecord = []func(r *appRun, ctx context.Context, w written){
	(*appRun).touchView,
	(*appRun).tellReporters,
	(*appRun).syncRevisions,
	(*appRun).reportDrift,
	(*appRun).watchApplied,
}

// touchView makes the web view read the branch again.
func (r *appRun) touchView(context.Context, written) { r.a.flights.touch() }

// tellReporters tells the forge (commit status) and the notifications.
func (r *appRun) tellReporters(_ context.Context, w written) {
	if commit := r.snap.Revision.Commit; commit != "" {
		r.a.reporter().Recorded(r.app.Name, r.app.ClusterName(), commit, w.st)
	}
}

// syncRevisions puts the role revisions the write recorded into the
// cluster as ControllerRevisions (status.clusterRevisions).
func (r *appRun) syncRevisions(ctx context.Context, w written) {
	if status.Settled(w.st.Phase) || w.st.Phase == status.PhaseProgressing {
		r.a.syncClusterRevisions(ctx, r.log, r.app, w.files)
	}
}

// reportDrift gives the drift a rollout's end recorded to the tracker.
func (r *appRun) reportDrift(ctx context.Context, w written) {
	if !w.progress {
		r.driftReported(ctx, w.st)
	}
}

// watchApplied watches what a settled rollout applied.
func (r *appRun) watchApplied(ctx context.Context, w written) {
	if !w.progress && status.Settled(w.st.Phase) && r.steps != nil {
		r.a.watchApp(ctx, r.app, r.cluster, r.steps.plan.Inventory(), plannedObjects(r.steps.plan))
	}
}

// dropUntrustedPreviews adds to files the removal of the app's previews
// of a refused head of the followed ref, once a trusted snapshot is
// recorded after a failure (a refused head is recorded as one): only
// then does the run read the app's previews, which are not among its
// records (status.Load).
func (r *appRun) dropUntrustedPreviews(ctx context.Context, files map[string][]byte) {
	if r.snap.Trust != sources.Trusted || r.prev.Status == nil || r.prev.Status.Phase != status.PhaseFailed || r.a.deps.Status == nil {
		return
	}
	read, err := r.a.deps.Status.Read(ctx, status.PreviewsDir(r.app.Name))
	if err != nil {
		r.log.WithError(err).Warn("previews of a refused head not read: they are removed at a later record")
		return
	}
	status.DropUntrustedPreviews(files, read.Files, r.app.Name)
}
