package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"

	"k8s.io/client-go/rest"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/statusstore"
)

var fullCommit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// GitPlan is an app planned from git against its status on the status
// branch.
type GitPlan struct {
	// Plan is the plan; its roles' decisions are made against the role
	// revision history.
	Plan *model.Plan
	// Revision is the source revision planned.
	Revision sources.SourceRevision
	// Summary is the plan as roleout plan prints it. A role is changed
	// when the agent's next reconcile applies it: its decided revision
	// is not the one the status says is applied (newRollout), which
	// holds after a paused, window-blocked or failed rollout even where
	// the decision against the history is unchanged.
	Summary model.Summary
}

// PlanOptions select what PlanFromGit plans.
type PlanOptions struct {
	// Ref is a branch, tag, full ref name or commit; empty: the
	// configured one.
	Ref string
	// Versions, when set, are the versions of Kubernetes and of the
	// workload controllers to plan for (ParseVersions).
	Versions *object.ClusterVersions
}

// PlanFromGit renders and plans app from the source at ref (a branch, tag,
// full ref name or commit; empty: the configured one) against the app's
// status on the status branch, without touching the cluster. Secrets are
// masked as control.ReadMasker says with no cluster: with masks.keyFile as the
// install masks them, otherwise with a random key for this call.
//
// opts.Versions, when set, plans for those versions of Kubernetes and of
// the workload controllers instead: the plan's predictions are theirs
// (unverified where roleout does not model them) and its Upgrade says
// which workloads moving to them would roll.
func PlanFromGit(ctx context.Context, cfg *config.Config, appName string, opts PlanOptions) (*GitPlan, error) {
	masker, err := control.ReadMasker(ctx, cfg, nil)
	if err != nil {
		return nil, err
	}
	app, err := appOf(ctx, cfg, appName)
	if err != nil {
		return nil, err
	}
	plan, rev, prev, err := planFromGit(ctx, cfg, app, opts, nil, nil, masker)
	if err != nil {
		return nil, err
	}
	return &GitPlan{Plan: plan, Revision: rev, Summary: newRollout(rev, plan, prev.Status).summarize()}, nil
}

// DiffOptions select what Diff compares.
type DiffOptions struct {
	// Ref is a branch, tag, full ref name or commit; empty: the
	// configured one.
	Ref string
	// Offline compares with the last status in git instead of the
	// cluster; Kube is then unused.
	Offline bool
	// Masker masks Secrets in the plan and its diffs (see control.ReadMasker).
	// Nil: a random key for this call.
	Masker *secrets.Masker
	// Kube reaches the agent's own cluster. An app that names another
	// (apps[].kubeconfig, kubeconfigSecret) is compared with that one,
	// its Secret read from this one, as roleout run does.
	Kube *rest.Config
}

// Diff renders and plans app from git and compares the plan with the
// cluster (server-side dry run) or, offline, with the last status in git.
// It never writes to the cluster or to git.
func Diff(ctx context.Context, cfg *config.Config, appName string, opts DiffOptions) (*diff.Report, error) {
	app, err := appOf(ctx, cfg, appName)
	if err != nil {
		return nil, err
	}
	if opts.Masker == nil {
		opts.Masker = secrets.Ephemeral()
	}
	var cluster, own Cluster
	if !opts.Offline {
		if cluster, err = appCluster(ctx, cfg, app, opts.Kube, opts.Masker); err != nil {
			return nil, err
		}
		if own, err = appCluster(ctx, cfg, config.App{}, opts.Kube, opts.Masker); err != nil {
			return nil, err
		}
	}
	plan, rev, prev, err := planFromGit(ctx, cfg, app, PlanOptions{Ref: opts.Ref}, cluster, own, opts.Masker)
	if err != nil {
		return nil, err
	}
	var rep *diff.Report
	if opts.Offline {
		rep = diff.Offline(DiffTarget(app), plan, prev.Recorded())
	} else if rep, err = diff.Live(ctx, cluster, DiffTarget(app), plan); err != nil {
		return nil, fmt.Errorf("app %s: %w", appName, err)
	}
	rep.SourceRevision = rev.String()
	return rep, nil
}

// appCluster returns app's cluster reached from kube, the agent's own, as
// roleout run reaches it: the agent's own when the app names none, else
// the one it names (clusters.clusterFor: unsafe kubeconfigs refused).
func appCluster(ctx context.Context, cfg *config.Config, app config.App, kube *rest.Config, masker *secrets.Masker) (Cluster, error) {
	if kube == nil {
		return nil, errors.New("a live diff needs a cluster: set kubeconfig, or use --offline")
	}
	opts := apply.DefaultOptions()
	opts.Masker = masker
	if app.Kubeconfig == "" && app.KubeconfigSecret == nil {
		return newApplierCluster(kube, opts)
	}
	cl, err := newClusters(kube, opts, cfg.Clusters)
	if err != nil {
		return nil, err
	}
	c, err := cl.clusterFor(ctx, app)
	if err != nil {
		return nil, fmt.Errorf("cluster of app %s: %w", app.Name, err)
	}
	return c, nil
}

// planFromGit fetches the source at ref, reads the app's previous status
// and plans the app as the agent does (planning) with masker; cluster,
// when not nil, is read as a reconcile reads it, and own, the agent's
// own cluster, for the app's decryption keys.
func planFromGit(ctx context.Context, cfg *config.Config, app config.App, po PlanOptions, cluster, own ClusterReader, masker *secrets.Masker) (*model.Plan, sources.SourceRevision, *status.Records, error) {
	ref := po.Ref
	opts := sourceOptions(cfg)
	switch {
	case fullCommit.MatchString(ref):
		opts.Ref = sources.Ref{Commit: ref}
	case ref != "":
		opts.Ref = sources.Ref{Name: ref}
	}
	if ref != "" && opts.Verify != nil && opts.Verify.Mode == "tag" {
		// A ref named on the command line is no tag the configuration
		// follows: it is planned unverified, as untrusted (planTrust).
		opts.Verify = nil
	}
	src, err := sources.NewGitSource(opts)
	if err != nil {
		return nil, sources.SourceRevision{}, nil, err
	}
	snap, err := src.Fetch(ctx)
	if err != nil {
		return nil, sources.SourceRevision{}, nil, err
	}
	snap.Trust = planTrust(cfg, ref, snap.Trust)
	branch := statusstore.New(StatusOptions(cfg))
	defer branch.Close()
	prev, err := status.Load(ctx, branch, app.Name)
	if err != nil {
		return nil, snap.Revision, nil, err
	}
	p := planning{cfg: cfg, renderer: newKustomizeRenderer(cfg.RenderProcesses, nil), planner: rolePlanner{}, masker: masker, own: own}
	plan, err := p.plan(ctx, planRequest{snap: snap, app: app, prev: prev, cluster: cluster, crds: p.dependencyCRDs(ctx, snap, app), versions: po.Versions})
	if err != nil {
		return nil, snap.Revision, nil, fmt.Errorf("app %s: %w", app.Name, err)
	}
	return plan, snap.Revision, prev, nil
}

// DirOptions select a local kustomize directory to plan (roleout plan
// DIR): no agent config, no git, no status; roles come from the objects'
// annotations.
type DirOptions struct {
	// Root is the repository root: reads outside it are refused.
	Root string
	// Overlay is the directory to build, relative to Root.
	Overlay string
	// App names the app in revision names.
	App string
	// Namespace is set on namespaced objects that name none.
	Namespace string
	// Versions, when set, plans for these versions (PlanOptions.Versions).
	Versions *object.ClusterVersions
}

// PlanDir renders and plans a local directory as the agent plans an app
// (planning), against no history and no cluster. Secrets are masked with
// a random key for this call. No destinations confine it: no app config
// names any.
func PlanDir(ctx context.Context, o DirOptions) (*model.Plan, error) {
	return planDir(ctx, o, nil, secrets.Ephemeral())
}

// DiffDir plans a local directory as PlanDir does, but with what the
// cluster kube reaches says (collision counts, CRDs, the versions it
// runs), and compares the plan with that cluster by server-side dry run;
// nothing is written.
func DiffDir(ctx context.Context, o DirOptions, kube *rest.Config) (*diff.Report, error) {
	masker := secrets.Ephemeral()
	opts := apply.DefaultOptions()
	opts.Masker = masker
	cluster, err := newApplierCluster(kube, opts)
	if err != nil {
		return nil, err
	}
	plan, err := planDir(ctx, o, cluster, masker)
	if err != nil {
		return nil, err
	}
	return diff.Live(ctx, cluster, DiffTarget(config.App{Name: o.App}), plan)
}

// planDir plans the local directory o, reading cluster when not nil.
func planDir(ctx context.Context, o DirOptions, cluster ClusterReader, masker *secrets.Masker) (*model.Plan, error) {
	p := planning{cfg: &config.Config{}, renderer: newKustomizeRenderer(0, nil), planner: rolePlanner{}, masker: masker}
	app := config.App{Name: o.App, Path: o.Overlay, Namespace: o.Namespace, AllowEmpty: true}
	snap := sources.Snapshot{Dir: o.Root, Trust: sources.Trusted}
	return p.plan(ctx, planRequest{snap: snap, app: app, cluster: cluster, unconfined: true,
		where: filepath.Join(o.Root, filepath.FromSlash(o.Overlay)), versions: o.Versions})
}

// planTrust is the trust domain of a snapshot fetched for `roleout plan`
// or `roleout diff` at ref: the configured ref, or any ref whose commit the
// source verified, is trusted; another ref (a pull-request head, say) is
// not, and renders as a preview does. A source that marks its snapshot
// untrusted is never overruled.
func planTrust(cfg *config.Config, ref string, got sources.Trust) sources.Trust {
	if got == sources.Untrusted || (ref != "" && (cfg.Source.Verify == nil || cfg.Source.Verify.Mode == "tag")) {
		return sources.Untrusted
	}
	return sources.Trusted
}

// Statuses reads the status of app (every app of cfg when app is "")
// from the status branch, without a cluster.
func Statuses(ctx context.Context, cfg *config.Config, app string) ([]status.Report, error) {
	apps := cfg.Apps
	if app != "" {
		a, err := appOf(ctx, cfg, app)
		if err != nil {
			return nil, err
		}
		apps = []config.App{a}
	} else if len(cfg.AppGenerators) > 0 {
		gen, err := generated(ctx, cfg)
		if err != nil {
			return nil, err
		}
		apps = append(slices.Clone(apps), gen...)
	}
	names := make([]string, len(apps))
	for i, a := range apps {
		names[i] = a.Name
	}
	branch := statusstore.New(StatusOptions(cfg))
	defer branch.Close()
	reads, err := branch.ReadEach(ctx, names)
	if err != nil {
		return nil, err
	}
	var out []status.Report
	for _, name := range names {
		rec, err := status.Parse(reads[name], name)
		if err != nil {
			return nil, err
		}
		out = append(out, rec.Report())
	}
	return out, nil
}

// History reads an app's status, revisions and rollout records from the
// status branch, without a cluster.
func History(ctx context.Context, cfg *config.Config, appName string) (*status.HistoryReport, error) {
	app, err := cfg.App(appName)
	if err != nil {
		return nil, err
	}
	branch := statusstore.New(StatusOptions(cfg))
	defer branch.Close()
	rec, err := status.Load(ctx, branch, app.Name)
	if err != nil {
		return nil, err
	}
	return rec.HistoryReport(cfg.Status.Branch)
}

// appOf returns the app of cfg named name: a written app, or one its
// generators make at the source's head (fetched for that).
func appOf(ctx context.Context, cfg *config.Config, name string) (config.App, error) {
	app, err := cfg.App(name)
	if err == nil || len(cfg.AppGenerators) == 0 {
		return app, err
	}
	gen, gerr := generated(ctx, cfg)
	if gerr != nil {
		return config.App{}, errors.Join(err, gerr)
	}
	for _, a := range gen {
		if a.Name == name {
			return a, nil
		}
	}
	return config.App{}, fmt.Errorf("%w, and appGenerators make no app of that name at the source's head", err)
}

// generated returns the apps cfg's generators make at the source's head.
func generated(ctx context.Context, cfg *config.Config) ([]config.App, error) {
	src, err := sources.NewGitSource(sourceOptions(cfg))
	if err != nil {
		return nil, err
	}
	snap, err := src.Fetch(ctx)
	if err != nil {
		return nil, err
	}
	dirs, err := kustomizationDirs(snap.Dir)
	if err != nil {
		return nil, err
	}
	return cfg.Generate(dirs).Apps, nil
}
