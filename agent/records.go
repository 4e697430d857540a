package agent

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/status"
)

// readPrevious reads app's records from the agent's status branch
// (status.Load), with a refused head logged: the message names the
// commit and who signed it.
func (a *Agent) readPrevious(ctx context.Context, log logrus.FieldLogger, app string) (*status.Records, error) {
	prev, err := status.Load(ctx, a.deps.Status, app)
	if err == nil && prev.Refused != nil {
		c := prev.Refused
		log.WithFields(logrus.Fields{"statusHead": status.Short(c.Head), "signer": c.Signer, "readFrom": status.Short(c.ReadFrom)}).Error(c.Message)
	}
	return prev, err
}

// statusUpdate is the status commit of app after r (nil when nothing was
// planned): st, the rollout's record unless progress (a checkpoint
// between waves: the record comes at the rollout's end), and what the
// plan holds, with each role's history truncated to the app's
// revisionHistoryLimit only after a rollout that succeeded, and the
// inventory of one that did not keeping everything the app may have
// applied.
func statusUpdate(app config.App, st *status.App, r *rollout, succeeded, progress bool) status.Update {
	u := status.Update{Status: st}
	if !progress {
		u.Rollout = r.historyRecord(st)
	}
	if r == nil {
		return u
	}
	p := &status.Planned{Inventory: r.plan.Inventory(), MergeInventory: !succeeded, Revisions: map[string][]revision.RoleRevision{}}
	for _, role := range r.plan.Roles() {
		hist := role.History
		if succeeded {
			hist = revision.Truncate(hist, *app.RevisionHistoryLimit, role.Decision.Revision.Name)
		}
		p.Revisions[role.Name] = hist
	}
	u.Planned = p
	return u
}

// historyRecord returns the record of this rollout for history.yaml, nil
// when it applied or tried to apply nothing. A nil rollout (nothing
// planned) records a failure only: trigger poll, started now.
func (r *rollout) historyRecord(st *status.App) *status.Rollout {
	trigger, started := "poll", time.Now()
	rec := status.Rollout{SourceRevision: st.SourceRevision, Result: st.Phase, Message: st.Message}
	if r != nil {
		trigger, started = r.trigger, r.started
		rec.Waves, rec.Pruned, rec.Drift = r.waves, r.pruned, r.recordedDrift()
	}
	if len(rec.Waves) == 0 && len(rec.Pruned) == 0 && len(rec.Drift) == 0 && st.Phase != status.PhaseFailed {
		return nil
	}
	rec.Trigger, rec.Started = trigger, metav1.NewTime(started.UTC().Truncate(time.Second))
	rec.Finished = metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	return &rec
}

// recordWave adds wave i's record to the rollout being recorded.
func (r *rollout) recordWave(i int, started time.Time, err error) {
	w := r.plan.Waves[i]
	rec := status.Wave{UpgradeOrder: w.UpgradeOrder, Result: status.PhaseSucceeded, Elapsed: time.Since(started).Round(time.Millisecond).String()}
	if err != nil {
		rec.Result = status.PhaseFailed
	}
	for _, role := range w.Roles {
		if r.apply[role.Name] {
			d := role.Decision
			action := string(d.PlanAction()) // a first install is install, as the plan says
			switch {
			case r.healing[role.Name]:
				action = "heal"
			case d.Action == revision.Unchanged:
				action = "retry"
			}
			rec.Roles = append(rec.Roles, status.RoleRecord{Name: role.Name, RevisionNumber: d.Revision.Number, RevisionName: d.Revision.Name, Action: action})
		}
	}
	r.waves = append(r.waves, rec)
}

// recordWorkloads sets, in the newest wave's record, role's workloads:
// their predicted and observed identities (history.yaml keeps them, as
// many as status.MaxRecordedWorkloads, so the history shows what each
// rollout predicted and got).
func (r *rollout) recordWorkloads(role string, ws []status.Workload) {
	if len(r.waves) == 0 {
		return
	}
	w := &r.waves[len(r.waves)-1]
	for i := range w.Roles {
		if w.Roles[i].Name == role {
			w.Roles[i].RecordWorkloads(ws)
		}
	}
}
