package agent

import (
	"context"
	"fmt"
	"regexp"

	"k8s.io/client-go/rest"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/sources"
)

var fullCommit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// GitPlan is an app planned from git against its status on the status
// branch.
type GitPlan struct {
	// Plan is the plan; its roles' decisions are made against the role
	// revision history.
	Plan *render.Plan
	// Revision is the source revision planned.
	Revision sources.Revision
	// Summary is the plan as roleout plan prints it. A role is changed
	// when the agent's next reconcile applies it: its decided revision
	// is not the one the status says is applied (newRollout), which
	// holds after a paused, window-blocked or failed rollout even where
	// the decision against the history is unchanged.
	Summary render.Summary
}

// PlanFromGit renders and plans app from the source at ref (a branch, tag,
// full ref name or commit; empty: the configured one) against the app's
// status on the status branch, without touching the cluster. Secrets are
// masked as ReadMasker says with no cluster: with masks.keyFile as the
// install masks them, otherwise with a random key for this call.
func PlanFromGit(ctx context.Context, cfg *Config, appName, ref string) (*GitPlan, error) {
	masker, err := ReadMasker(ctx, cfg, nil)
	if err != nil {
		return nil, err
	}
	plan, rev, prev, err := planFromGit(ctx, cfg, appName, ref, nil, masker)
	if err != nil {
		return nil, err
	}
	return &GitPlan{Plan: plan, Revision: rev, Summary: newRollout(rev, plan, prev.status).summarize()}, nil
}

// DiffOptions select what Diff compares.
type DiffOptions struct {
	// Ref is a branch, tag, full ref name or commit; empty: the
	// configured one.
	Ref string
	// Offline compares with the last status in git instead of the
	// cluster; Applier is then unused.
	Offline bool
	// Applier reaches the cluster for a live diff.
	Applier Applier
	// Masker masks Secrets in the plan and its diffs (see ReadMasker);
	// the Applier's must be the same. Nil: a random key for this call.
	Masker *secrets.Masker
	// Home is the agent's own cluster: an app that names another
	// (apps[].kubeconfig, kubeconfigSecret) is compared with that one,
	// its Secret read from Home, as roleout run does.
	Home *rest.Config
}

// appApplier returns the applier of app's own cluster, reached as roleout
// run reaches it (clusters.applierFor: unsafe kubeconfigs refused).
func appApplier(ctx context.Context, cfg *Config, app AppConfig, home *rest.Config, masker *secrets.Masker) (Applier, error) {
	opts := apply.DefaultOptions()
	opts.Masker = masker
	cl, err := newClusters(home, opts, cfg.Clusters)
	if err != nil {
		return nil, err
	}
	return cl.applierFor(ctx, app)
}

// Diff renders and plans app from git and compares the plan with the
// cluster (server-side dry run) or, offline, with the last status in git.
// It never writes to the cluster or to git.
func Diff(ctx context.Context, cfg *Config, appName string, opts DiffOptions) (*DiffReport, error) {
	var applier Applier
	if !opts.Offline {
		applier = opts.Applier
		app, err := cfg.App(appName)
		if err != nil {
			return nil, err
		}
		if (app.Kubeconfig != "" || app.KubeconfigSecret != nil) && opts.Home != nil {
			if applier, err = appApplier(ctx, cfg, app, opts.Home, opts.Masker); err != nil {
				return nil, fmt.Errorf("cluster of app %s: %w", app.Name, err)
			}
		}
	}
	plan, rev, prev, err := planFromGit(ctx, cfg, appName, opts.Ref, applier, opts.Masker)
	if err != nil {
		return nil, err
	}
	app, _ := cfg.App(appName)
	var rep *DiffReport
	if opts.Offline {
		rep = DiffOffline(app, plan, prev)
	} else if rep, err = DiffLive(ctx, applier, app, plan); err != nil {
		return nil, fmt.Errorf("app %s: %w", appName, err)
	}
	rep.Revision = rev.String()
	return rep, nil
}

// planFromGit fetches the source at ref, reads the app's previous status
// and plans with masker; with an applier, predictions use live collision
// counts.
func planFromGit(ctx context.Context, cfg *Config, appName, ref string, applier Applier, masker *secrets.Masker) (*render.Plan, sources.Revision, *previous, error) {
	app, err := cfg.App(appName)
	if err != nil {
		return nil, sources.Revision{}, nil, err
	}
	opts := sourceOptions(cfg)
	switch {
	case fullCommit.MatchString(ref):
		opts.Ref = sources.Ref{Commit: ref}
	case ref != "":
		opts.Ref = sources.Ref{Name: ref}
	}
	src, err := sources.NewGitSource(opts)
	if err != nil {
		return nil, sources.Revision{}, nil, err
	}
	snap, err := src.Fetch(ctx)
	if err != nil {
		return nil, sources.Revision{}, nil, err
	}
	snap.Trust = planTrust(cfg, ref, snap.Trust)
	prev, err := loadPrevious(ctx, sources.NewStatusBranch(StatusOptions(cfg)), app.Name)
	if err != nil {
		return nil, snap.Revision, nil, err
	}
	a := NewWithDeps(cfg, Deps{Renderer: newKustomizeRenderer(cfg.RenderProcesses), Planner: rolePlanner{}, Applier: applier, Masker: masker}, nil)
	plan, err := a.plan(ctx, snap, app, prev)
	if err != nil {
		return nil, snap.Revision, nil, fmt.Errorf("app %s: %w", app.Name, err)
	}
	return plan, snap.Revision, prev, nil
}

// planTrust is the trust domain of a snapshot fetched for `roleout plan`
// or `roleout diff` at ref: the configured ref, or any ref whose commit the
// source verified, is trusted; another ref (a pull-request head, say) is
// not, and renders as a preview does. A source that marks its snapshot
// untrusted is never overruled.
func planTrust(cfg *Config, ref string, got sources.Trust) sources.Trust {
	if got == sources.Untrusted || (ref != "" && cfg.Source.Verify == nil) {
		return sources.Untrusted
	}
	return sources.Trusted
}
