package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// RunOnce polls the source once and reconciles every app. A failing app
// does not stop the others; the error joins every app's error.
//
// When a newer commit arrives during a rollout, the running wave finishes,
// then the agent plans again from the newer commit (up to maxReplans
// times in one call).
//
// Which apps are suspended comes from the control ConfigMap: the copy Run's
// watch keeps, else one read; when it cannot be read, no app is
// reconciled.
//
// Then come the pull requests' previews (previews): made before it
// returns, or, under Run, handed to the preview worker.
func (a *Agent) RunOnce(ctx context.Context) error {
	if err := a.control.Load(ctx); err != nil {
		return errors.Join(fmt.Errorf("cannot tell which apps are suspended, nothing reconciled: %w", err), a.previews(ctx))
	}
	extra, err := a.reconcileAll(ctx)
	return errors.Join(err, a.previews(ctx, extra...))
}

// reconcileAll is RunOnce's part before the previews: it fetches the
// followed ref and reconciles every app, and returns the heads to
// preview besides the pull requests (a refused head of the followed
// ref). Previews give way meanwhile (yieldGate).
func (a *Agent) reconcileAll(ctx context.Context) ([]sources.Head, error) {
	a.queue.yield.enter()
	defer a.queue.yield.leave()
	for attempt := 0; ; attempt++ {
		polled := time.Now()
		snap, err := a.fetchFollowed(ctx)
		a.metrics.polled(time.Since(polled))
		if err != nil {
			err = fmt.Errorf("poll source: %w", err)
			var untrusted *sources.VerificationError
			if errors.As(err, &untrusted) {
				a.recordUntrusted(ctx, err)
				// Previewed, never applied (docs/design.md, "Safety and trust").
				return a.untrustedHead(ctx, untrusted), err
			}
			return nil, err // pull-request heads are still previewed
		}
		a.generate(ctx, snap)
		var (
			errs       []error
			superseded bool
			mu         sync.Mutex
			held       []config.App
			begun      = map[string]context.Context{}
			ends       = map[string]func(){}
			late       = &lateRecords{}
		)
		for _, app := range a.cfg.Apps {
			actx, done, ok := a.begin(ctx, app.Name)
			if !ok {
				continue // another replica holds it (sharding.mode: dynamic)
			}
			held, begun[app.Name], ends[app.Name] = append(held, app), withLateRecords(actx, late), done
		}
		stopLate := late.run(lateBatch, lateWait, lateCheck, func(app string) { ends[app]() }) // ends is only read from here on
		runInOrder(held, a.cfg.Concurrency, func(app config.App) {
			started := time.Now()
			err := a.reconcileApp(begun[app.Name], snap, app)
			if !late.owns(app.Name) {
				ends[app.Name]() // else once its record is written
			}
			a.live.Progressed()
			a.metrics.reconcile.WithLabelValues(app.Name).Observe(time.Since(started).Seconds())
			mu.Lock()
			defer mu.Unlock()
			var s *SupersededError
			switch {
			case errors.As(err, &s) && attempt < maxReplans:
				superseded = true
			case err != nil:
				errs = append(errs, fmt.Errorf("app %s: %w", app.Name, err))
			}
		})
		if err := stopLate(); err != nil {
			errs = append(errs, err)
		}
		a.live.Progressed()
		if !superseded {
			return nil, errors.Join(errs...)
		}
	}
}

// fetchFollowed fetches the followed ref from the agent's own source. Its
// snapshot is in the trusted domain (verified, or verification off by the
// operator's choice) unless the source itself marks it otherwise; only
// such a snapshot renders with what the app allows (kustomizeRenderer).
func (a *Agent) fetchFollowed(ctx context.Context) (sources.Snapshot, error) {
	snap, err := a.deps.Fetcher.Fetch(ctx)
	if err == nil && snap.Trust == "" {
		snap.Trust = sources.Trusted
	}
	if err == nil {
		a.announce(snap.Revision.String())
	}
	for _, why := range snap.Refused {
		a.log.WithField("revision", snap.Revision.String()).Warn("a higher tag in source.semver's range was passed over: " + why)
	}
	return snap, err
}

// recordUntrusted records, in every app's status, that the source's
// newest revision was refused for its signature; nothing was applied.
func (a *Agent) recordUntrusted(ctx context.Context, cause error) {
	for _, app := range a.cfg.Apps {
		actx, done, ok := a.begin(ctx, app.Name)
		if !ok {
			continue
		}
		a.recordRefused(actx, app, cause)
		done()
	}
}

// recordRefused records, in app's status, that the source's newest
// revision was refused for its signature.
func (a *Agent) recordRefused(ctx context.Context, app config.App, cause error) {
	log := a.log.WithField("app", app.Name)
	log.WithError(cause).Error("source revision refused: nothing applied")
	prev, err := a.readPrevious(ctx, log, app.Name)
	if err != nil {
		return
	}
	st := status.App{APIVersion: config.APIVersion, Kind: status.Kind, App: app.Name, Source: a.sourceURL, Path: app.Path}
	if prev.Status != nil {
		st = *prev.Status
	}
	st.Phase, st.Message, st.StatusBranch = status.PhaseFailed, cause.Error(), prev.Refused
	run := &appRun{a: a, app: app, log: log, status: a.deps.Status, prev: prev, st: &st}
	if rev, err := sources.ParseRevision(st.SourceRevision); err == nil {
		run.snap.Revision = rev // the record is of the revision recorded before
	}
	_ = run.report(ctx, fmt.Sprintf("roleout: %s refused an untrusted revision", app.Name))
}

// untrustedHead returns the followed ref's head, refused for its
// signature, as a head to preview; none for a pinned commit or when the
// remote cannot be listed.
func (a *Agent) untrustedHead(ctx context.Context, cause *sources.VerificationError) []sources.Head {
	rev, err := a.deps.Fetcher.Head(ctx)
	if err != nil || rev.Ref == "" {
		return nil
	}
	ref := "refs/heads/" + rev.Ref
	if a.cfg.Source.Branch == "" {
		ref = "refs/tags/" + rev.Ref
	}
	return []sources.Head{{Ref: ref, Commit: rev.Commit, Untrusted: cause.Error()}}
}

// maxReplans bounds how often one RunOnce starts over because the source
// moved during a rollout.
const maxReplans = 3
