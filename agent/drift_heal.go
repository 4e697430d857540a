package agent

import (
	"context"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/drift"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/status"
)

// driftWork is what a reconcile does about app's drift: heal holds the
// drift to heal now (selfHeal), all the drift the status shows, and
// pending says the reconcile must run even when the revision is done.
type driftWork struct {
	heal, all []status.Drift
	pending   bool
}

// driftFor returns the drift work of app. status.Drift is healed only with
// selfHeal, never while paused or suspended, and inside the app's
// windows; otherwise new drift is recorded once.
func (a *Agent) driftFor(app config.App) driftWork {
	heal, all := a.drift.Due(app.Name)
	if !a.heals(app) {
		heal = nil
	}
	return driftWork{heal: heal, all: all, pending: len(heal) > 0 || a.drift.Unrecorded(app.Name)}
}

// heals reports whether app's drift may be healed now: selfHeal, not
// paused or suspended, inside its windows.
func (a *Agent) heals(app config.App) bool {
	suspended, _ := a.suspended(app.Name)
	open, _, err := a.windowOpen(app)
	return app.HealsDrift() && !app.Paused && !suspended && err == nil && open
}

// unwatchedDrift finds app's drift where no watch runs (run --once from
// cron, which never watches): each inventoried object missing, or holding
// fields of what its role's revision applied that another manager took.
// It costs one GET per object, once per run. The drift is new each time:
// it is recorded and, as selfHeal allows, healed.
func (a *Agent) unwatchedDrift(ctx context.Context, app config.App, prev *status.Records) driftWork {
	if a.dryRun || a.drift.Active() || prev == nil || len(prev.Inventory) == 0 {
		return driftWork{}
	}
	c, err := a.clusterFor(ctx, app)
	if err != nil {
		return driftWork{}
	}
	applied := recordedObjects(prev)
	since := metav1.NewTime(a.deps.now().UTC().Truncate(time.Second))
	var all []status.Drift
	for _, e := range prev.Inventory {
		if e.Prerequisite {
			continue
		}
		live, err := c.Live(ctx, e.Ref)
		switch {
		case err != nil:
			continue
		case live == nil:
			all = append(all, *drift.Deleted(e.Ref, e.Role, since))
		case applied[e.Ref] != nil:
			taken, err := apply.TakenFields(applied[e.Ref], live.GetManagedFields(), fieldManager(app))
			if err == nil && len(taken.Fields) > 0 {
				all = append(all, *drift.Taken(e.Ref, e.Role, taken, since))
			}
		}
	}
	return a.driftWorkOf(app, prev, all)
}

// sameDrift reports whether two drift lists name the same objects and
// fields.
func sameDrift(a, b []status.Drift) bool {
	return slices.EqualFunc(a, b, func(x, y status.Drift) bool {
		return x.Object == y.Object && x.Deleted == y.Deleted && slices.Equal(x.Fields, y.Fields)
	})
}

// planHeal adds the drift work to the rollout: the roles of objects to
// heal are applied again at their recorded revision, and those objects
// even when they carry the applied hash, with force. A role git changed
// is applied anyway; a role that left git is not healed.
func (r *rollout) planHeal(w driftWork) {
	if !w.pending {
		return
	}
	r.trigger, r.drift = "drift", w.all
	r.healObjs, r.healing = map[object.Ref]bool{}, map[string]bool{}
	for _, d := range w.heal {
		st := r.status(d.Role)
		if st == nil {
			continue
		}
		r.healObjs[d.Ref] = true
		if !r.apply[d.Role] {
			r.apply[d.Role], r.healing[d.Role] = true, true
			st.Result = status.RolePending
		}
	}
}

// driftReported records, once the status commit is in, what became of
// the app's drift: Events on the objects, the metric, the heal backoff.
func (run *appRun) driftReported(ctx context.Context, st *status.App) {
	a, log, app, r := run.a, run.log, run.app, run.steps
	if r == nil || r.drift == nil {
		return
	}
	recorded := r.recordedDrift()
	var healed []status.Drift
	for _, d := range recorded {
		if d.Healed {
			healed = append(healed, d)
		}
	}
	switch {
	case status.Settled(st.Phase):
		a.drift.Reported(app.Name, healed)
	case len(r.healObjs) == 0:
		a.drift.Reported(app.Name, nil) // recorded only; a failed heal is tried again
	}
	for _, d := range recorded {
		reason, outcome := "Drift", "recorded"
		msg := "roleout found drift: " + d.String()
		if d.Healed && status.Settled(st.Phase) {
			reason, outcome, msg = "DriftHealed", "healed", "roleout healed drift: "+d.String()
		}
		a.drift.Metric.WithLabelValues(app.Name, outcome).Inc()
		if e := a.cfg.Apply.Events; e == nil || *e {
			if err := run.cluster.Event(ctx, d.Ref, reason, msg); err != nil {
				log.WithError(err).Debug("drift event not recorded")
			}
		}
	}
}

// watchApp watches app's inventory on its cluster c (nil: reached now)
// for drift (roleout run only; not in dry runs); applied holds each object
// as roleout last applied it (plannedObjects, recordedObjects).
func (a *Agent) watchApp(ctx context.Context, app config.App, c Cluster, inv []model.InventoryEntry, applied map[object.Ref]map[string]any) {
	if a.dryRun || !a.drift.Active() {
		return
	}
	if c == nil {
		var err error
		if c, err = a.clusterFor(ctx, app); err != nil {
			return
		}
	}
	a.drift.Watch(app.Name, fieldManager(app), c, inv, applied)
}

// plannedObjects returns the objects of p by ref: what a rollout of p
// that succeeded applied.
func plannedObjects(p *model.Plan) map[object.Ref]map[string]any {
	out := map[object.Ref]map[string]any{}
	for _, r := range p.Roles() {
		for _, o := range r.Objects {
			out[object.RefOf(o)] = o.Object
		}
	}
	return out
}

// recordedObjects returns by ref the objects of each role's revision that
// prev's status says is applied, as the status branch records them.
func recordedObjects(prev *status.Records) map[object.Ref]map[string]any {
	out := map[object.Ref]map[string]any{}
	if prev == nil || prev.Status == nil {
		return out
	}
	for _, role := range prev.Status.Roles {
		for _, rev := range prev.History[role.Name] {
			if rev.Name != role.RevisionName {
				continue
			}
			for _, o := range rev.Objects {
				u := &unstructured.Unstructured{Object: o}
				out[object.RefOf(u)] = o
			}
		}
	}
	return out
}

// driftMessage says what the drift work did, for the status message.
func driftMessage(app config.App, all []status.Drift) string {
	if len(all) == 0 {
		return ""
	}
	var parts []string
	for _, d := range all {
		parts = append(parts, d.String())
	}
	if app.HealsDrift() {
		return "drift: " + strings.Join(parts, "; ")
	}
	return "drift (selfHeal is off: recorded, not healed): " + strings.Join(parts, "; ")
}

// recordedDrift is the drift for the history record: each object healed
// by this rollout marked so.
func (r *rollout) recordedDrift() []status.Drift {
	out := append([]status.Drift(nil), r.drift...)
	for i := range out {
		out[i].Healed = r.healObjs[out[i].Ref] && !r.failed()
	}
	return out
}

// failed reports whether a wave of this rollout failed.
func (r *rollout) failed() bool {
	for _, w := range r.waves {
		if w.Result == status.PhaseFailed {
			return true
		}
	}
	return false
}
