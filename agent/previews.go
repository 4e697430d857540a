package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/statusstore"
)

// PullRequests lists pull-request heads and fetches them.
type PullRequests interface {
	ListRefs(ctx context.Context, globs []string) ([]sources.Head, error)
	// Fetcher returns a fetcher that follows ref.
	Fetcher(ref string) Fetcher
}

// gitPullRequests adapts a GitSource to PullRequests.
type gitPullRequests struct{ src *sources.GitSource }

func (g gitPullRequests) ListRefs(ctx context.Context, globs []string) ([]sources.Head, error) {
	return g.src.ListRefs(ctx, globs)
}

func (g gitPullRequests) Fetcher(ref string) Fetcher { return g.src.ForRef(ref) }

// previews makes the previews of pull-request heads (previewRound). In
// Run they leave the poll: the poll hands its extra heads to the preview
// worker and returns at once, so the followed ref's rollout never waits
// on them; RunOnce alone makes them before it returns.
//
// extra are heads to preview besides the pull requests: the followed
// branch's newest commit when its signature was refused. A dry run makes
// none.
func (a *Agent) previews(ctx context.Context, extra ...sources.Head) error {
	if a.previewsApart {
		a.queue.ask(extra)
		return nil
	}
	return a.previewRound(ctx, extra)
}

// runPreviews is the preview worker of Run: one round after each poll
// (asks that come during a round merge into the next) until ctx ends.
func (a *Agent) runPreviews(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.queue.kick:
		}
		if err := a.previewRound(ctx, a.queue.take()); err != nil && ctx.Err() == nil {
			a.log.WithError(err).Error("previews failed")
		}
	}
}

// previewGrace is how long a round may run past source.pullRequests
// .maxTimePerPoll to finish the previews it started before it is cut
// (what it cut is made again in a later round, never recorded).
const previewGrace = 10 * time.Minute

// previewRound previews the heads that wait for it, within the bounds of
// source.pullRequests (maxHeadsPerPoll, maxTimePerPoll): it lists the
// pull-request heads, finds for each app the heads whose preview is
// missing or older than the head, previews them in the queue's order
// (previewQueue.order: newest first, in turn across authors), and
// commits each app's new previews and the removal of those whose head
// is gone in one status commit. Heads not reached wait for the next
// round and are never recorded as failed; a preview cut by cancellation
// (shutdown, a lost claim) is dropped and made again. Errors of one head
// are recorded in its preview.
func (a *Agent) previewRound(ctx context.Context, extra []sources.Head) error {
	pr := a.cfg.Source.PullRequests
	watch := pr != nil && len(pr.Refs) > 0
	if (!watch && len(extra) == 0) || a.deps.PullRequests == nil || a.dryRun {
		// A dry run writes nothing, not even to git.
		return nil
	}
	var heads []sources.Head
	if watch {
		var err error
		if heads, err = a.deps.PullRequests.ListRefs(ctx, pr.Refs); err != nil {
			return fmt.Errorf("list pull-request refs: %w", err)
		}
	}
	heads = append(heads, extra...)
	a.queue.observe(heads)
	ctx, cancel := context.WithTimeout(ctx, pr.TimePerPoll()+previewGrace)
	defer cancel()
	deadline := time.Now().Add(pr.TimePerPoll())

	var errs []error
	var works []*previewWork
	stale := map[string]bool{} // refs some app waits on
	for _, app := range a.cfg.Apps {
		w, err := a.previewWork(ctx, app, heads)
		if err != nil {
			errs = append(errs, fmt.Errorf("app %s previews: %w", app.Name, err))
		}
		if w == nil {
			continue
		}
		works = append(works, w)
		for ref := range w.stale {
			stale[ref] = true
		}
	}
	var waiting []sources.Head
	for _, h := range heads {
		if stale[h.Ref] {
			waiting = append(waiting, h)
		}
	}
	waiting = a.queue.order(waiting)
	left := waiting[:0:0]
	for i, h := range waiting {
		if i >= pr.HeadsPerPoll() || time.Now().After(deadline) || ctx.Err() != nil {
			left = append(left, waiting[i:]...)
			a.metrics.previews.WithLabelValues("deferred").Add(float64(len(waiting) - i))
			break
		}
		whole := true
		for _, w := range works {
			if w.stale[h.Ref] && !a.previewHead(ctx, w, h, deadline) {
				whole = false
			}
		}
		if !whole {
			left = append(left, h)
		}
	}
	for _, w := range works {
		if err := a.commitPreviews(ctx, w); err != nil {
			errs = append(errs, fmt.Errorf("app %s previews: %w", w.app.Name, err))
			for ref, commit := range w.written {
				left = append(left, sources.Head{Ref: ref, Commit: commit})
			}
		}
	}
	a.reportPreviewed(works, left)
	a.queue.setWaiting(left)
	a.metrics.previewsWaiting.Set(float64(len(left)))
	return errors.Join(errs...)
}

// previewWork is one app's part of a preview round.
type previewWork struct {
	app config.App
	log logrus.FieldLogger
	// prev is the app's records, read when a head needs them.
	prev *status.Records
	// stale holds the refs whose preview is missing or older than the
	// head; written, the heads previewed anew, by ref.
	stale   map[string]bool
	written map[string]string
	files   map[string][]byte
	changes []string
	pv      *previewer // once a head needs it
}

// previewWork reads app's previews (not its records: the heads that need
// them read them, previewHead) and returns what the round has to do for
// it: the heads to preview and the previews of gone heads to remove; nil
// when another replica holds the app.
func (a *Agent) previewWork(ctx context.Context, app config.App, heads []sources.Head) (*previewWork, error) {
	actx, done, ok := a.begin(ctx, app.Name)
	if !ok {
		return nil, nil // another replica holds it and previews it
	}
	defer done()
	log := a.log.WithField("app", app.Name)
	read, err := a.deps.Status.Read(actx, status.PreviewsDir(app.Name))
	if err != nil {
		return nil, err
	}
	w := &previewWork{app: app, log: log, stale: map[string]bool{}, written: map[string]string{}, files: map[string][]byte{}}
	current := map[string]bool{}
	for _, h := range heads {
		name := status.PreviewName(h.Ref)
		current[name] = true
		if old, ok := status.ReadPreview(read.Files, app.Name, name); !ok || old.Commit != h.Commit {
			w.stale[h.Ref] = true
		}
	}
	for name := range read.Files {
		dir, file := path.Split(name)
		if dir != status.PreviewsDir(app.Name)+"/" {
			continue
		}
		base := strings.TrimSuffix(strings.TrimSuffix(file, ".json"), ".md")
		if !current[base] {
			w.files[name] = nil
			if strings.HasSuffix(file, ".json") {
				w.changes = append(w.changes, base+" removed")
			}
		}
	}
	return w, nil
}

// previewHead previews head h for w's app once the loop is idle
// (yieldGate); it reports whether the preview was made. None is made
// past deadline, when the app's claim is gone, or when the preview was
// cut by cancellation.
func (a *Agent) previewHead(ctx context.Context, w *previewWork, h sources.Head, deadline time.Time) bool {
	if a.queue.yield.wait(ctx, previewYield) != nil || time.Now().After(deadline) {
		return false
	}
	actx, done, ok := a.begin(ctx, w.app.Name)
	if !ok {
		return false
	}
	defer done()
	if w.prev == nil {
		prev, err := a.readPrevious(actx, w.log, w.app.Name)
		if err != nil {
			w.log.WithError(err).WithField("ref", h.Ref).Error("preview not made: the app's records cannot be read")
			return false
		}
		w.prev = prev
	}
	if w.pv == nil {
		v := a.previewerFor(actx, w.log, w.app)
		w.pv = &v
	}
	p, author := w.pv.preview(actx, w.app, h, w.prev)
	if actx.Err() != nil {
		a.metrics.previews.WithLabelValues("cut").Inc()
		w.log.WithField("ref", h.Ref).Info("preview cut by cancellation: made again later, not recorded")
		return false
	}
	a.queue.authored(h.Ref, author)
	name := status.PreviewName(h.Ref)
	pf, err := p.Files(name)
	if err != nil {
		w.log.WithError(err).WithField("ref", h.Ref).Error("preview not written")
		return false
	}
	maps.Copy(w.files, pf)
	w.written[h.Ref] = h.Commit
	w.changes = append(w.changes, name+" "+h.Commit[:7])
	a.metrics.previews.WithLabelValues("written").Inc()
	w.log.WithFields(logrus.Fields{"ref": h.Ref, "commit": h.Commit[:7]}).Info("preview written")
	return true
}

// commitPreviews commits w's new previews and removals in one status
// commit (none when there is nothing to write).
func (a *Agent) commitPreviews(ctx context.Context, w *previewWork) error {
	if len(w.files) == 0 {
		return nil
	}
	actx, done, ok := a.begin(ctx, w.app.Name)
	if !ok {
		return errors.New("the app moved to another replica before its previews were recorded")
	}
	defer done()
	sort.Strings(w.changes)
	_, err := a.deps.Status.Commit(actx, w.files, a.signed(fmt.Sprintf("roleout: %s previews: %s", w.app.Name, strings.Join(w.changes, ", "))))
	if err != nil && !errors.Is(err, statusstore.ErrNoChange) {
		w.written = nil
		return err
	}
	return nil
}

// reportPreviewed tells the reporter of each head whose previews are all
// on the branch now: those some app wrote this round and none left
// waiting.
func (a *Agent) reportPreviewed(works []*previewWork, left []sources.Head) {
	waits := map[string]bool{}
	for _, h := range left {
		waits[h.Ref] = true
	}
	written := map[string]string{}
	for _, w := range works {
		maps.Copy(written, w.written)
	}
	for ref, head := range written {
		if !waits[ref] {
			a.reporter().Previewed(ref, head)
		}
	}
}

// preview plans and diffs one head against what the app has applied.
// A head is always untrusted, whatever its fetcher says: it renders with
// exec, helm and remote fetches off, and its diff reads the app's cluster
// only inside the app's namespaces (diff.Preview).
func (pv previewer) preview(ctx context.Context, app config.App, h sources.Head, prev *status.Records) (p status.Preview, author string) {
	a := pv.agent
	p = status.Preview{App: app.Name, Ref: h.Ref, Commit: h.Commit, Untrusted: h.Untrusted}
	snap, err := a.deps.PullRequests.Fetcher(h.Ref).Fetch(ctx)
	if err != nil {
		p.Error = err.Error()
		return p, ""
	}
	author = snap.Author
	snap.Trust = sources.Untrusted
	req := planRequest{snap: snap, app: app, prev: prev, cluster: pv.cluster}
	if pv.cluster == nil {
		// An offline preview takes the CRDs of the apps this one depends
		// on from the same head, as roleout plan does.
		req.crds = a.planning().dependencyCRDs(ctx, snap, app)
	}
	plan, err := a.planning().plan(ctx, req)
	if err != nil {
		p.Error = err.Error()
		return p, author
	}
	steps := newRollout(snap.Revision, plan, prev.Status)
	s := steps.summarize()
	p.Plan = &s
	for _, role := range plan.Roles() {
		for _, o := range role.Objects {
			if secrets.IsSecret(o.GetAPIVersion(), o.GetKind()) {
				if p.SecretBytes == nil {
					p.SecretBytes = map[string]int{}
				}
				p.SecretBytes[object.RefOf(o).String()] = status.SecretSize(o.Object)
			}
		}
	}
	p.Diff, err = pv.compare(ctx, app, plan, prev)
	if err != nil {
		p.Error = "diff: " + err.Error()
	}
	if p.Diff != nil {
		p.Diff.SourceRevision = snap.Revision.String()
	}
	return p, author
}
