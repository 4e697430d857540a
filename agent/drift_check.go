package agent

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/drift"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// The watches see drift as field ownership: what another manager took
// from roleout, and objects deleted. A change that leaves no owner behind
// (a field removed while no agent watched, managedFields reset, a
// mutation outside server-side apply's bookkeeping) is not among them.
// The full comparison is the safety net: every
// schedule.driftCheckInterval (default 1h) the running agent plans each
// settled app again and dry-runs it against the cluster, as roleout diff
// does; an object that would change is drift, recorded and healed as the
// watches' is.

// driftCheckDue reports whether app's full comparison is due: the running
// agent watches, the interval is on and has passed since the last one
// (the first starts the clock).
func (a *Agent) driftCheckDue(app string) bool {
	every := a.cfg.Schedule.DriftCheck()
	if every <= 0 || a.dryRun || !a.drift.Active() {
		return false
	}
	now := a.deps.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.state(app)
	if s.checked.IsZero() {
		s.checked = now
		return false
	}
	return now.Sub(s.checked) >= every
}

// comparedDrift compares app, settled at snap, in full with its cluster:
// the plan (with a held rollback's role) dry-run as roleout diff does.
// Objects the dry run would create are deleted drift, those it would
// change drift at the fields that differ. It costs a render, one dry-run
// patch per object and the reads diff makes, once per interval.
func (a *Agent) comparedDrift(ctx context.Context, app config.App, snap sources.Snapshot, prev *status.Records) driftWork {
	a.mu.Lock()
	a.state(app.Name).checked = a.deps.now()
	a.mu.Unlock()
	log := a.log.WithFields(logrus.Fields{"app": app.Name, "commit": snap.Revision.Short()})
	run := &appRun{a: a, app: app, log: log, snap: snap, prev: prev, st: &status.App{}}
	var err error
	if run.cluster, err = a.clusterFor(ctx, app); err != nil {
		log.WithError(err).Warn("full comparison with the cluster skipped")
		return driftWork{}
	}
	started := time.Now()
	plan, err := run.planHeld(ctx)
	var rep *diff.Report
	if err == nil {
		rep, err = diff.Live(ctx, run.cluster, DiffTarget(app), plan)
	}
	if err != nil {
		log.WithError(err).Warn("full comparison with the cluster failed; the watches still run")
		return driftWork{}
	}
	since := metav1.NewTime(a.deps.now().UTC().Truncate(time.Second))
	var all []status.Drift
	for _, s := range rep.Steps {
		for _, o := range s.Objects {
			switch o.Change {
			case model.Create, model.CreatePending, model.CreateInPendingNamespace:
				all = append(all, *drift.Deleted(o.Object, s.Role, since))
			case model.Update:
				all = append(all, status.Drift{Object: o.Object.String(), Role: s.Role, Fields: o.Fields, Compared: true, Since: since, Ref: o.Object})
			}
		}
	}
	log.WithFields(logrus.Fields{"objects": rep.Summary.Unchanged + rep.Summary.Update + rep.Summary.Create, "drifted": len(all),
		"elapsed": time.Since(started).Round(time.Millisecond)}).Info("compared the app in full with its cluster")
	return a.driftWorkOf(app, prev, all)
}

// driftWorkOf is the drift work of all, found by a comparison rather than
// a watch: new each time, recorded and, as selfHeal allows, healed; drift
// the status records already and that is not to be healed is none.
func (a *Agent) driftWorkOf(app config.App, prev *status.Records, all []status.Drift) driftWork {
	if len(all) == 0 {
		return driftWork{}
	}
	drift.Sort(all)
	if !a.heals(app) && prev.Status != nil && sameDrift(prev.Status.Drift, all) {
		return driftWork{}
	}
	w := driftWork{all: all, pending: true}
	if a.heals(app) {
		w.heal = all
	}
	return w
}
