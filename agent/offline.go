package agent

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/sources"
)

var fullCommit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// App returns the app called name.
func (c *Config) App(name string) (AppConfig, error) {
	var names []string
	for _, a := range c.Apps {
		if a.Name == name {
			return a, nil
		}
		names = append(names, a.Name)
	}
	return AppConfig{}, fmt.Errorf("app %q is not in the config (apps: %s)", name, strings.Join(names, ", "))
}

// PlanFromGit renders and plans app from the source at ref (a branch, tag,
// full ref name or commit; empty: the configured one) against the app's
// status on the status branch, without touching the cluster. It returns
// the plan and the revision planned.
func PlanFromGit(ctx context.Context, cfg *Config, appName, ref string) (*render.Plan, sources.Revision, error) {
	app, err := cfg.App(appName)
	if err != nil {
		return nil, sources.Revision{}, err
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
		return nil, sources.Revision{}, err
	}
	snap, err := src.Fetch(ctx)
	if err != nil {
		return nil, sources.Revision{}, err
	}
	status := sources.NewStatusBranch(statusOptions(cfg))
	prev, err := loadPrevious(ctx, status, app.Name)
	if err != nil {
		return nil, snap.Revision, err
	}
	a := NewWithDeps(cfg, Deps{Renderer: &kustomizeRenderer{}, Planner: rolePlanner{}}, nil)
	plan, err := a.plan(ctx, snap, app, prev)
	if err != nil {
		return nil, snap.Revision, fmt.Errorf("app %s: %w", app.Name, err)
	}
	return plan, snap.Revision, nil
}
