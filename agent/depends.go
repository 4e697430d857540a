package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// runInOrder runs each of apps with fn, at most limit at once, an app
// only after those of apps it depends on (dependsOn, directly or through
// others) have returned: within one poll, infrastructure is rolled out
// before what depends on it, and apps that depend on nothing run at once.
// The config has no dependency cycle (config.Parse refuses one), so every
// app starts.
func runInOrder(apps []config.App, limit int, fn func(config.App)) {
	done := make(map[string]chan struct{}, len(apps))
	for _, a := range apps {
		done[a.Name] = make(chan struct{})
	}
	slots := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for _, a := range apps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[a.Name])
			for _, d := range a.DependsOn {
				if ch, ok := done[d]; ok {
					<-ch
				}
			}
			slots <- struct{}{}
			defer func() { <-slots }()
			fn(a)
		}()
	}
	wg.Wait()
}

// waitingOn returns the apps app depends on that are not rolled out and
// healthy at snap's revision, each with what its status says ("" when
// none waits): rolled out by this agent at the revision, or recorded on
// the status branch as settled there (by any replica).
func (a *Agent) waitingOn(ctx context.Context, log logrus.FieldLogger, app config.App, snap sources.Snapshot) ([]string, error) {
	var out []string
	for _, d := range app.DependsOn {
		if a.isDone(d, snap.Revision) {
			continue
		}
		prev, err := a.readPrevious(ctx, log, d)
		if err != nil {
			return nil, fmt.Errorf("read the status of %s, which app %s depends on: %w", d, app.Name, err)
		}
		s := prev.Status
		switch {
		case s == nil:
			out = append(out, d+" (not rolled out yet)")
		case s.SourceRevision != snap.Revision.String():
			out = append(out, fmt.Sprintf("%s (%s at %s)", d, s.Phase, shortRevision(s.SourceRevision)))
		case !status.Settled(s.Phase):
			out = append(out, fmt.Sprintf("%s (%s)", d, s.Phase))
		}
	}
	return out, nil
}

// shortRevision is a recorded source revision, short.
func shortRevision(rev string) string {
	if r, err := sources.ParseRevision(rev); err == nil {
		return r.Short()
	}
	return rev
}

// waitForDependencies records that the run's app waits for the apps it
// depends on (phase WaitingForDependencies, the roles it had), and
// applies nothing; a dry run only says so.
func (r *appRun) waitForDependencies(ctx context.Context, waiting []string) error {
	msg := "waiting on " + strings.Join(waiting, ", ") + ": the apps it depends on (dependsOn) must be rolled out and healthy at this commit first; nothing applied"
	r.log.Info(msg)
	if r.a.dryRun {
		return nil
	}
	r.st.Phase, r.st.Message = status.PhaseWaitingForDependencies, msg
	if s := r.prev.Status; s != nil {
		r.st.Prerequisites, r.st.Roles, r.st.Rollback = s.Prerequisites, s.Roles, s.Rollback
	}
	r.steps = nil
	return r.report(ctx, fmt.Sprintf("roleout: %s waiting on %s (%s)", r.app.Name, strings.Join(r.app.DependsOn, ", "), r.snap.Revision.Short()))
}
