package agent

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/object"
)

// fieldManager is the server-side apply field manager of an app's
// objects: roleout/<app>. Objects applied before as "roleout" are handed
// over to it on their next write (apply.ApplyOptions.Migrate).
func fieldManager(app config.App) string { return apply.FieldManager + "/" + app.Name }

// ownership is what app may write among existing objects (docs/design.md,
// "Safety and trust", Ownership): its own, and others only with adopt.
func (a *Agent) ownership(app config.App) apply.Ownership {
	return apply.Ownership{Label: object.AppLabel, Value: app.Name, Adopt: app.Adopt, AdoptField: a.cfg.AppField(app, "adopt"),
		AdoptAnnotated: app.Honours(object.AdoptAnnotation), AnnotationsField: a.cfg.AppField(app, "allowedAnnotations")}
}

// applyOptions are the options of every apply of app's rollout.
func (a *Agent) applyOptions(app config.App) apply.ApplyOptions {
	return apply.ApplyOptions{
		Force: app.Force, Labels: map[string]string{object.AppLabel: app.Name}, SkipUnchanged: true,
		FieldManager: fieldManager(app), Migrate: []string{apply.FieldManager}, Owner: a.ownership(app),
	}
}

// DiffTarget is app as a diff compares for it: the options of its
// rollout's applies and, when it prunes, of its prune.
func DiffTarget(app config.App) diff.Target {
	t := diff.Target{App: app.Name, Apply: apply.ApplyOptions{
		Force: app.Force, Labels: map[string]string{object.AppLabel: app.Name},
		FieldManager: fieldManager(app), Migrate: []string{apply.FieldManager},
	}}
	if app.Prune {
		p := pruneOptions(app, "")
		t.Prune = &p
	}
	return t
}

// pruneOptions are the options of app's prunes, and of the diff that
// predicts them; field names app's prunePersistent in messages.
func pruneOptions(app config.App, field string) apply.PruneOptions {
	return apply.PruneOptions{
		OwnerLabel: object.AppLabel, OwnerValue: app.Name, Timeout: app.Timeout.Duration,
		Persistent: app.PrunePersistent, PersistentField: field,
		PruneAnnotated: app.Honours(object.PruneAnnotation), AnnotationsField: strings.TrimSuffix(field, "prunePersistent") + "allowedAnnotations",
	}
}

// checkOwners refuses the rollout as a whole, before anything is
// written, when an object it would apply exists and is not the app's.
func (run *appRun) checkOwners(ctx context.Context) error {
	r := run.steps
	var objs []*unstructured.Unstructured
	if r.prereqChanged {
		objs = append(objs, r.plan.Prerequisites...)
	}
	for _, role := range r.plan.Roles() {
		if r.apply[role.Name] {
			objs = append(objs, role.Objects...)
		}
	}
	if len(objs) == 0 {
		return nil
	}
	if err := run.cluster.CheckOwners(ctx, objs, run.a.ownership(run.app)); err != nil {
		return fmt.Errorf("refused before applying anything: %w", err)
	}
	return nil
}
