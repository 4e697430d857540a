package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"sort"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
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

// previews renders, plans and diffs every new or moved pull-request head
// for every app and commits the previews; the preview of a head that is
// gone is removed. Errors of one head are recorded in its preview.
//
// extra are heads to preview besides the pull requests: the followed
// branch's newest commit when its signature was refused. A dry run makes
// none.
func (a *Agent) previews(ctx context.Context, extra ...sources.Head) error {
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
	var errs []error
	written := map[string]string{} // ref → head previewed anew
	for _, app := range a.cfg.Apps {
		actx, done, ok := a.begin(ctx, app.Name)
		if !ok {
			continue // another replica holds it and previews it
		}
		refs, err := a.previewApp(actx, app, heads)
		if err != nil {
			errs = append(errs, fmt.Errorf("app %s previews: %w", app.Name, err))
		}
		maps.Copy(written, refs)
		done()
	}
	for ref, head := range written {
		a.reporter().Previewed(ref, head) // once its previews are on the branch
	}
	return errors.Join(errs...)
}

// previewApp previews every new or moved head for app and removes the
// previews of heads that are gone, in one status commit; it returns the
// heads it previewed anew, by ref, once that commit is on the branch.
func (a *Agent) previewApp(ctx context.Context, app config.App, heads []sources.Head) (map[string]string, error) {
	log := a.log.WithField("app", app.Name)
	prev, err := a.readPrevious(ctx, log, app.Name)
	if err != nil {
		return nil, err
	}
	written := map[string]string{}
	var pa *previewer // the agent as it previews app, once a head needs it
	files := map[string][]byte{}
	var changes []string
	current := map[string]bool{}
	for _, h := range heads {
		name := status.PreviewName(h.Ref)
		current[name] = true
		if old, ok := status.ReadPreview(prev.Files, app.Name, name); ok && old.Commit == h.Commit {
			continue
		}
		if pa == nil {
			v := a.previewerFor(ctx, log, app)
			pa = &v
		}
		pf, err := pa.preview(ctx, app, h, prev).Files(name)
		if err != nil {
			return nil, err
		}
		maps.Copy(files, pf)
		written[h.Ref] = h.Commit
		changes = append(changes, name+" "+h.Commit[:7])
		log.WithFields(logrus.Fields{"ref": h.Ref, "commit": h.Commit[:7]}).Info("preview written")
	}
	for name := range prev.Files {
		dir, file := path.Split(name)
		if dir != path.Join(app.Name, "previews")+"/" {
			continue
		}
		base := strings.TrimSuffix(strings.TrimSuffix(file, ".json"), ".md")
		if !current[base] {
			files[name] = nil
			if strings.HasSuffix(file, ".json") {
				changes = append(changes, base+" removed")
			}
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	sort.Strings(changes)
	_, err = a.deps.Status.Commit(ctx, files, a.signed(fmt.Sprintf("roleout: %s previews: %s", app.Name, strings.Join(changes, ", "))))
	if err != nil && !errors.Is(err, sources.ErrNoChange) {
		return nil, err
	}
	return written, nil
}

// preview plans and diffs one head against what the app has applied.
// A head is always untrusted, whatever its fetcher says: it renders with
// exec, helm and remote fetches off, and its diff reads the app's cluster
// only inside the app's namespaces (diff.Preview).
func (pv previewer) preview(ctx context.Context, app config.App, h sources.Head, prev *status.Records) status.Preview {
	a := pv.agent
	p := status.Preview{App: app.Name, Ref: h.Ref, Commit: h.Commit, Untrusted: h.Untrusted}
	snap, err := a.deps.PullRequests.Fetcher(h.Ref).Fetch(ctx)
	if err != nil {
		p.Error = err.Error()
		return p
	}
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
		return p
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
	return p
}
