package agent

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/statusstore"
)

// fakeFetcher returns snap, or err. Head returns snap's revision, or
// the next one queued in heads (a commit that arrives mid-rollout).
type fakeFetcher struct {
	snap    sources.Snapshot
	err     error
	heads   []sources.Snapshot
	mu      sync.Mutex
	fetches int
}

func (f *fakeFetcher) Fetch(context.Context) (sources.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fetches++
	return f.snap, f.err
}

func (f *fakeFetcher) fetchCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fetches
}

func (f *fakeFetcher) Head(context.Context) (sources.SourceRevision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.heads) > 0 {
		f.snap, f.heads = f.heads[0], f.heads[1:]
	}
	return f.snap.Revision, f.err
}

// IsAncestor says the fake's history only moves forward: it is never
// force-pushed.
func (f *fakeFetcher) IsAncestor(context.Context, sources.SourceRevision, sources.SourceRevision) (bool, error) {
	return true, nil
}

// fakeRenderer returns objs (or err), counts calls and records the trust
// domain of each snapshot rendered.
type fakeRenderer struct {
	objs   []*unstructured.Unstructured
	err    error
	errFor map[string]error // by app name
	// objsFor, by app name, replaces objs.
	objsFor map[string][]*unstructured.Unstructured
	mu      sync.Mutex
	calls   int
	trusts  []sources.Trust
}

func (f *fakeRenderer) Render(_ context.Context, snap sources.Snapshot, app config.App) ([]*unstructured.Unstructured, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.trusts = append(f.trusts, snap.Trust)
	if err := f.errFor[app.Name]; err != nil {
		return nil, err
	}
	objs := f.objs
	if o, ok := f.objsFor[app.Name]; ok {
		objs = o
	}
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		out[i] = o.DeepCopy()
	}
	return out, f.err
}

// fakePlanner plans with the real planner; it exists to count calls and
// inject errors.
type fakePlanner struct {
	err   error
	calls int
}

func (f *fakePlanner) Plan(objs []*unstructured.Unstructured, opts plan.Options, facts plan.Facts) (*model.Plan, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	return rolePlanner{}.Plan(objs, opts, facts)
}

// fakeApplier records the names of applied objects in order; an object
// named in failApply fails to apply, one named in failHealth never gets
// healthy.
type fakeApplier struct {
	mu         sync.Mutex
	applied    []string
	appliedNS  []string // the namespace of each applied object
	labels     map[string]map[string]string
	failApply  string
	failHealth string
	resets     int
	observed   map[string]object.Identity
	// collisions are the live collision counts, by object name.
	collisions map[string]int32
	pruned     []string
	// afterApply, when set, is called with each applied object's name.
	afterApply func(name string)
	// reads are the objects Diff, Live, ObserveAll, CollisionCounts and
	// CRDFor were asked about, as "Kind/namespace/name".
	reads []string
	// scopes are the custom kinds the fake cluster serves, namespaced
	// (true) or not.
	scopes map[schema.GroupKind]bool
}

// Watch streams nothing: the fake's objects never change behind the
// agent's back (drift tests call the drift tracker's event directly).
func (f *fakeApplier) Watch(context.Context, []object.Ref, string, func(apply.WatchEvent)) (func(), error) {
	return func() {}, nil
}

// As returns the fake itself: it grants every identity what the agent
// has (forbiddenApplier grants nothing).
func (f *fakeApplier) As(string) (ClusterReader, error) { return f, nil }

// ClusterVersions knows no version (versionedApplier knows some).
func (f *fakeApplier) ClusterVersions(context.Context, []object.ControllerDeployment) object.ClusterVersions {
	return object.ClusterVersions{}
}

func (f *fakeApplier) read(refs ...object.Ref) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range refs {
		f.reads = append(f.reads, r.String())
	}
}

func (f *fakeApplier) readAll(objs []*unstructured.Unstructured) {
	for _, o := range objs {
		f.read(object.RefOf(o))
	}
}

func (f *fakeApplier) Apply(_ context.Context, objs []*unstructured.Unstructured, opts apply.ApplyOptions) ([]apply.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.labels == nil {
		f.labels = map[string]map[string]string{}
	}
	var res []apply.Result
	var errs []error
	for _, o := range objs {
		r := apply.Result{Object: object.RefOf(o), Action: apply.Configured}
		if o.GetName() == f.failApply {
			r.Action, r.Err = apply.Failed, errors.New(r.Object.String()+": refused")
			errs = append(errs, r.Err)
		} else {
			f.applied = append(f.applied, o.GetName())
			f.appliedNS = append(f.appliedNS, o.GetNamespace())
			l := map[string]string{}
			for k, v := range o.GetLabels() {
				l[k] = v
			}
			for k, v := range opts.Labels {
				l[k] = v
			}
			f.labels[o.GetName()] = l
			if f.afterApply != nil {
				f.afterApply(o.GetName())
			}
		}
		res = append(res, r)
		if opts.Progress != nil {
			opts.Progress(len(res), len(objs))
		}
	}
	return res, errors.Join(errs...)
}

// namespaces returns the namespace of every object applied.
func (f *fakeApplier) namespaces() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.appliedNS)
}

func (f *fakeApplier) WaitHealthy(_ context.Context, objs []*unstructured.Unstructured, opts apply.WaitOptions) error {
	for i, o := range objs {
		if o.GetName() == f.failHealth {
			return &apply.NotReadyError{Object: object.RefOf(o), Status: "InProgress", Message: "Available: 0/1"}
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(objs))
		}
	}
	return nil
}

func (f *fakeApplier) ResetMapper() { f.resets++ }

// ObserveAll returns the identities set in f.observed by object name.
func (f *fakeApplier) ObserveAll(_ context.Context, objs []*unstructured.Unstructured) map[object.Ref]apply.ObserveResult {
	f.readAll(objs)
	out := map[object.Ref]apply.ObserveResult{}
	for _, o := range objs {
		if obs, ok := f.observed[o.GetName()]; ok {
			out[object.RefOf(o)] = apply.ObserveResult{Observed: obs}
		} else {
			out[object.RefOf(o)] = apply.ObserveResult{Err: errors.New("no observation in the fake")}
		}
	}
	return out
}

func (f *fakeApplier) CollisionCounts(_ context.Context, objs []*unstructured.Unstructured) map[object.Ref]*int32 {
	f.readAll(objs)
	out := map[object.Ref]*int32{}
	for _, o := range objs {
		if cc, ok := f.collisions[o.GetName()]; ok {
			out[object.RefOf(o)] = &cc
		}
	}
	return out
}

// Prune records the names it was asked to delete, in order.
// CheckOwners finds every object the app's own.
func (f *fakeApplier) CheckOwners(context.Context, []*unstructured.Unstructured, apply.Ownership) error {
	return nil
}

func (f *fakeApplier) Prune(_ context.Context, refs []object.Ref, _ apply.PruneOptions) ([]apply.Result, error) {
	var res []apply.Result
	for _, r := range refs {
		f.pruned = append(f.pruned, r.Name)
		res = append(res, apply.Result{Object: r, Action: apply.Deleted})
	}
	return res, nil
}

// Diff reports every object as an update.
func (f *fakeApplier) Diff(_ context.Context, objs []*unstructured.Unstructured, _ apply.DiffOptions) ([]model.ObjectDiff, error) {
	f.readAll(objs)
	var out []model.ObjectDiff
	for _, o := range objs {
		out = append(out, model.ObjectDiff{Object: object.RefOf(o), Change: model.Update, Diff: "fake"})
	}
	return out, nil
}

// Live answers, with its labels, an object that was applied (by name);
// otherwise it finds nothing.
func (f *fakeApplier) Live(_ context.Context, ref object.Ref) (*unstructured.Unstructured, error) {
	f.read(ref)
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.labels[ref.Name]
	if !ok {
		return nil, nil
	}
	o := &unstructured.Unstructured{}
	o.SetAPIVersion(ref.APIVersion)
	o.SetKind(ref.Kind)
	o.SetNamespace(ref.Namespace)
	o.SetName(ref.Name)
	o.SetLabels(l)
	return o, nil
}

func (f *fakeApplier) CRDFor(_ context.Context, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	f.read(object.RefOf(o))
	return nil, nil
}

func (f *fakeApplier) Event(context.Context, object.Ref, string, string) error { return nil }

// Scopes answers from f.scopes: kinds beyond Kubernetes' own that the fake
// cluster serves.
func (f *fakeApplier) Scopes(_ context.Context, kinds []schema.GroupKind) (map[schema.GroupKind]bool, error) {
	out := map[schema.GroupKind]bool{}
	for _, gk := range kinds {
		if ns, ok := f.scopes[gk]; ok {
			out[gk] = ns
		}
	}
	return out, nil
}

// fakeStatus is a status branch in memory.
type fakeStatus struct {
	mu      sync.Mutex
	files   map[string][]byte
	commits []string
	// refused, when set, is reported with every read: the head was
	// refused and files are those of an older, trusted commit.
	refused *status.Refusal
	// failFinal fails that many of the next commits that are not
	// checkpoints (a rollout's final record), writing nothing.
	failFinal int
}

func (f *fakeStatus) Read(_ context.Context, dir string, skip ...string) (status.Read, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string][]byte{}
	for name, data := range f.files {
		if strings.HasPrefix(name, dir+"/") && !slices.ContainsFunc(skip, func(s string) bool { return strings.HasPrefix(name, dir+"/"+s+"/") }) {
			out[name] = data
		}
	}
	r := status.Read{Files: out, Head: "f0f0f0f0f0", Commit: "c0ffee", Refused: f.refused}
	if f.refused == nil {
		r.Head = r.Commit
	}
	return r, nil
}

func (f *fakeStatus) Commit(_ context.Context, files map[string][]byte, msg string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failFinal > 0 && !strings.Contains(msg, " [wave ") {
		f.failFinal--
		return "", errors.New("commit status to branch roleout/status: the branch moved on every attempt")
	}
	if f.files == nil {
		f.files = map[string][]byte{}
	}
	changed := false
	for k, v := range files {
		if string(f.files[k]) != string(v) {
			changed = true
		}
		if v == nil {
			delete(f.files, k)
		} else {
			f.files[k] = v
		}
	}
	if !changed {
		return "", statusstore.ErrNoChange
	}
	f.commits = append(f.commits, msg)
	return "c0ffee", nil
}

// fakePullRequests lists heads and fetches each from its own fake
// fetcher, by ref.
type fakePullRequests struct {
	heads    []sources.Head
	fetchers map[string]*fakeFetcher
}

func (f *fakePullRequests) ListRefs(context.Context, []string) ([]sources.Head, error) {
	return f.heads, nil
}

func (f *fakePullRequests) Fetcher(ref string) Fetcher { return f.fetchers[ref] }

var (
	_ PullRequests = (*fakePullRequests)(nil)
	_ Fetcher      = (*fakeFetcher)(nil)
	_ Renderer     = (*fakeRenderer)(nil)
	_ Planner      = (*fakePlanner)(nil)
	_ Cluster      = (*fakeApplier)(nil)
	_ StatusStore  = (*fakeStatus)(nil)
)

func quietLogger() logrus.FieldLogger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}
