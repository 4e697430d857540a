package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

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
		var applied []*model.Role
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
	applied := make(map[object.Ref]*unstructured.Unstructured, len(results))
	for _, res := range results {
		if res.Applied != nil {
			applied[res.Object] = res.Applied
		}
	}
	if err := run.cluster.WaitHealthy(ctx, objs, apply.WaitOptions{Timeout: app.Timeout.Duration, Progress: ready, Rules: rules, Applied: applied}); err != nil {
		return err
	}
	a.live.Progressed()
	log.WithFields(logrus.Fields{"created": counts[apply.Created], "configured": counts[apply.Configured] + counts[apply.Recreated],
		"unchanged": counts[apply.Unchanged], "elapsed": time.Since(started).Round(time.Millisecond)}).Info("healthy")
	return nil
}
