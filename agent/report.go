package agent

import (
	"context"
	"fmt"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/forge"
	"github.com/roleout/roleout/notify"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/statusstore"
)

// reporter is deps.Reporter, or one that tells no one.
func (a *Agent) reporter() Reporter {
	if a.deps.Reporter == nil || a.dryRun {
		return nobody{}
	}
	return a.deps.Reporter
}

// nobody is the Reporter of an agent without a forge or notifications.
type nobody struct{}

func (nobody) Previewed(string, string)                     {}
func (nobody) Recorded(string, string, string, *status.App) {}
func (nobody) Flushed() <-chan struct{}                     { return closedChan }

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Flush waits until the reporter has posted what it was told, or ctx
// ends: roleout run --once waits a while before it exits.
func (a *Agent) Flush(ctx context.Context) error {
	select {
	case <-a.reporter().Flushed():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the forge was still being posted to: %w", context.Cause(ctx))
	}
}

// newReporter returns the Reporters cfg asks for, as one (nil: none),
// posting until ctx ends: the forge's poster, which reads pull requests'
// previews from branch, and the notifier.
func newReporter(ctx context.Context, cfg *config.Config, branch *statusstore.Branch, log logrus.FieldLogger) (Reporter, error) {
	var out reporters
	if cfg.Forge.On() {
		po, err := forge.NewPosterFor(cfg, previewReader(cfg, branch), log)
		if err != nil {
			return nil, err
		}
		go po.Run(ctx)
		out = append(out, po)
	}
	if len(cfg.Notifications) > 0 {
		n := notify.New(cfg.Notifications, log)
		go n.Run(ctx)
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// previewReader reads, for the forge's comments, every app's preview of
// a pull request's ref from branch (statusstore.Branch.Previews: once per
// head of the branch, not per pull request).
func previewReader(cfg *config.Config, branch *statusstore.Branch) forge.PreviewReader {
	names := make([]string, len(cfg.Apps))
	for i, app := range cfg.Apps {
		names[i] = app.Name
	}
	return func(ctx context.Context, ref string) ([]status.Preview, error) {
		return branch.Previews(ctx, names, ref)
	}
}

// reporters tell each of theirs.
type reporters []Reporter

func (rs reporters) Previewed(ref, head string) {
	for _, r := range rs {
		r.Previewed(ref, head)
	}
}

func (rs reporters) Recorded(app, cluster, commit string, st *status.App) {
	for _, r := range rs {
		r.Recorded(app, cluster, commit, st)
	}
}

// Flushed is closed once each reporter's is.
func (rs reporters) Flushed() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for _, r := range rs {
			<-r.Flushed()
		}
		close(done)
	}()
	return done
}

// reportStart tells the reporter that the run's rollout starts: roles to
// apply that are not a heal alone (a heal is told when it is recorded).
func (run *appRun) reportStart() {
	r := run.steps
	for name := range r.apply {
		if !r.healing[name] {
			st := *run.st
			st.Phase, st.Prerequisites, st.Roles = status.PhaseProgressing, r.prereq, r.roles
			run.a.reporter().Recorded(run.app.Name, run.app.ClusterName(), r.revision.Commit, &st)
			return
		}
	}
}
