package apply

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
)

// FieldManager is the server-side apply field manager roleout writes as.
const FieldManager = "roleout"

// Options configures an Applier.
type Options struct {
	// FieldManager names the writer in managedFields. Default "roleout".
	FieldManager string
	// Concurrency bounds the objects applied at once within a wave.
	Concurrency int
	// PollInterval is how often health waits read the objects.
	PollInterval time.Duration
	// Masker masks Secret values in diffs and keys the applied hash of
	// Secrets (internal/secrets). Nil: diffs show placeholders and
	// Secrets carry no applied hash, so they are written on every apply.
	Masker *secrets.Masker
}

// DefaultOptions returns field manager roleout, 16 objects at once and a
// 500ms health poll.
func DefaultOptions() Options {
	return Options{FieldManager: FieldManager, Concurrency: 16, PollInterval: 500 * time.Millisecond}
}

// Applier applies objects to one cluster with server-side apply through a
// long-lived dynamic client and a discovery-backed RESTMapper.
type Applier struct {
	opts   Options
	client dynamic.Interface
	// meta reads objects' metadata only: what Apply needs to know of
	// the live objects it replaces.
	meta   metadata.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
	// cfg is the configuration the clients were made from (As copies it).
	cfg *rest.Config
	// disc reads the server's version; versions caches what
	// ClusterVersions read.
	disc     discovery.ServerVersionInterface
	versions *versionCache
}

// New returns an Applier for the cluster cfg reaches. Client QPS and
// Burst are raised to match opts.Concurrency when cfg leaves them unset;
// the user agent defaults to "roleout".
func New(cfg *rest.Config, opts Options) (*Applier, error) {
	def := DefaultOptions()
	if opts.FieldManager == "" {
		opts.FieldManager = def.FieldManager
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = def.Concurrency
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = def.PollInterval
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.UserAgent == "" {
		cfg.UserAgent = "roleout"
	}
	if cfg.QPS == 0 {
		cfg.QPS = float32(25 * opts.Concurrency)
		cfg.Burst = 50 * opts.Concurrency
	}
	// One HTTP client for the object clients: one connection pool even
	// when cfg's Dial (agent.fenced) keeps client-go from sharing its
	// transport. Discovery keeps its own, with its 32 s timeout.
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("create cluster client: %w", err)
	}
	client, err := dynamic.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("create cluster client: %w", err)
	}
	meta, err := metadata.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("create cluster client: %w", err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("create discovery client: %w", err)
	}
	return &Applier{
		opts:     opts,
		client:   client,
		meta:     meta,
		mapper:   restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)),
		cfg:      cfg,
		disc:     disc,
		versions: &versionCache{},
	}, nil
}

// ApplyOptions are the per-call choices of Apply.
type ApplyOptions struct {
	// Force takes ownership of fields another field manager owns.
	Force bool
	// Labels are set on every object (roleout.dev/app and friends).
	Labels map[string]string
	// DryRun asks the API server to validate, default and merge without
	// persisting (dryRun=All); results carry the live and merged objects.
	DryRun bool
	// SkipUnchanged leaves an object alone, with no write, when its live
	// copy carries the object.AppliedHashAnnotation of what would be applied now.
	// Ignored with DryRun, which always asks the server.
	SkipUnchanged bool
	// FieldManager, when set, is the field manager this call applies as
	// instead of Options.FieldManager (an app's own: roleout/<app>).
	FieldManager string
	// Migrate names field managers whose apply entries in a live object's
	// managedFields are handed over to this call's field manager before
	// it writes (renamed, or merged into its entry), so the fields they
	// owned neither conflict nor stay behind when they leave git.
	Migrate []string
	// Heal names objects found drifted: each is applied even when its
	// live copy carries the hash of what is applied now (SkipUnchanged),
	// and with force, taking back the fields another manager changed.
	Heal map[object.Ref]bool
	// HealTaken heals, as Heal does, an object that carries the applied
	// hash but whose live copy shows fields of it taken by another manager
	// (TakenFields): drift made while no agent watched does not survive a
	// rollout of its role. Without it such an object is skipped.
	HealTaken bool
	// Progress, when set, is called after each object is written (or
	// skipped, or failed) with how many of the call's objects are done:
	// the web view's progress bar. Calls may come from several
	// goroutines at once, never with a smaller done than an earlier call
	// saw; it must return quickly.
	Progress func(done, total int)
	// Owner refuses, with an OwnershipError and no write, objects that
	// exist and are not the owner's (see CheckOwners, which checks a whole
	// rollout before it starts). The zero value checks nothing.
	Owner Ownership
}

// Apply server-side applies objs, at most Concurrency at once, and
// returns one Result per object in objs' order. The error joins the
// failed objects' errors; objects that succeeded stay applied.
func (a *Applier) Apply(ctx context.Context, objs []*unstructured.Unstructured, opts ApplyOptions) ([]Result, error) {
	results := make([]Result, len(objs))
	// Applying needs only the live objects' metadata (existence, version,
	// applied hash); a dry run returns the live objects for diffs.
	detail := metadataOnly
	if opts.DryRun {
		detail = fullObjects
	}
	live := a.prefetch(ctx, objs, detail, ownerSelector(opts.Labels))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(a.opts.Concurrency)
	var mu sync.Mutex
	done := 0
	for i, o := range objs {
		g.Go(func() error {
			results[i] = a.applyOne(gctx, o, opts, live)
			if opts.Progress != nil {
				mu.Lock()
				done++
				opts.Progress(done, len(objs))
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return results, errors.Join(errs...)
}

func (a *Applier) applyOne(ctx context.Context, in *unstructured.Unstructured, opts ApplyOptions, live *liveSet) Result {
	o := in.DeepCopy()
	res := Result{Object: object.RefOf(o)}
	if len(opts.Labels) > 0 {
		l := o.GetLabels()
		if l == nil {
			l = map[string]string{}
		}
		for k, v := range opts.Labels {
			l[k] = v
		}
		o.SetLabels(l)
	}
	if err := stamp(o, a.opts.Masker); err != nil {
		return res.fail(fmt.Errorf("hash: %w", err))
	}
	m, err := a.mapping(o)
	if err != nil {
		return res.fail(err)
	}
	if err := checkScope(o, m); err != nil {
		return res.fail(err)
	}
	ri, err := a.resource(o)
	if err != nil {
		return res.fail(err)
	}
	before, err := a.before(ctx, ri, o, live)
	if err != nil {
		return res.fail(fmt.Errorf("read: %w", err))
	}
	if err := opts.Owner.refusal(before, o); err != nil {
		res.Action, res.Err = Failed, err
		return res
	}
	markCreator(o, before, opts.Labels[object.AppLabel])
	heal := opts.Heal[res.Object]
	if opts.SkipUnchanged && !opts.DryRun && !heal && alreadyApplied(before, o) {
		if !opts.HealTaken || !taken(before, o, a.fieldManager(opts)) {
			res.Action, res.Applied = Unchanged, before
			return res
		}
		heal = true
	}
	applyOpts := metav1.ApplyOptions{FieldManager: a.fieldManager(opts), Force: opts.Force || heal}
	switch {
	case opts.DryRun:
		applyOpts.DryRun = []string{metav1.DryRunAll}
		applyOpts.FieldManager = dryRunManager(before, opts, applyOpts.FieldManager)
	case before != nil && len(opts.Migrate) > 0:
		if err := a.migrateManagers(ctx, ri, before, opts, applyOpts.FieldManager); err != nil {
			return res.fail(err)
		}
	}
	after, err := ri.Apply(ctx, o.GetName(), o, applyOpts)
	if err != nil && isImmutable(err) && before != nil && o.GetAnnotations()[object.RecreateAnnotation] == "true" && !opts.DryRun {
		if err := a.deleteAndWait(ctx, ri, before, 2*time.Minute); err != nil {
			return res.fail(fmt.Errorf("recreate: %w", err))
		}
		if after, err = ri.Apply(ctx, o.GetName(), o, applyOpts); err == nil {
			res.Action, res.ResourceVersion, res.Applied = Recreated, after.GetResourceVersion(), after
			return res
		}
	}
	if err != nil {
		return res.fail(explainApplyError(err))
	}
	if opts.DryRun {
		res.Live, res.Merged = before, after
	} else {
		res.ResourceVersion, res.Applied = after.GetResourceVersion(), after
	}
	switch {
	case before == nil:
		res.Action = Created
	case before.GetResourceVersion() == after.GetResourceVersion():
		res.Action = Unchanged
	default:
		res.Action = Configured
	}
	return res
}

// before returns the live object o would replace: from the prefetched
// lists when its group was listed, else with a GET (of the object, or of
// its metadata when live holds metadata); nil when it does not exist.
func (a *Applier) before(ctx context.Context, ri dynamic.ResourceInterface, o *unstructured.Unstructured, live *liveSet) (*unstructured.Unstructured, error) {
	if k, ok := a.groupKey(o); ok {
		if got, listed := live.lookup(k, o.GetName()); listed {
			return got, nil
		}
	}
	var got *unstructured.Unstructured
	var err error
	if live != nil && live.detail == metadataOnly {
		got, err = a.getMetadata(ctx, o)
	} else {
		got, err = ri.Get(ctx, o.GetName(), metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return got, err
}

// resource returns the dynamic client for o's resource, clearing a
// namespace that a cluster-scoped kind cannot have. A kind the mapper
// does not know (a CRD installed a moment ago) triggers one rediscovery.
func (a *Applier) resource(o *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	m, err := a.mapping(o)
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameRoot {
		o.SetNamespace("")
		return a.client.Resource(m.Resource), nil
	}
	return a.client.Resource(m.Resource).Namespace(o.GetNamespace()), nil
}

// metadataResource is resource for the metadata client.
func (a *Applier) metadataResource(o *unstructured.Unstructured) (metadata.ResourceInterface, error) {
	m, err := a.mapping(o)
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameRoot {
		return a.meta.Resource(m.Resource), nil
	}
	return a.meta.Resource(m.Resource).Namespace(o.GetNamespace()), nil
}

// mapping returns o's REST mapping, rediscovering once for an unknown
// kind.
func (a *Applier) mapping(o *unstructured.Unstructured) (*meta.RESTMapping, error) {
	gvk := o.GroupVersionKind()
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		a.mapper.Reset()
		m, err = a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("find the API resource for %s: %w", gvk, err)
	}
	return m, nil
}

// ResetMapper forgets the discovered API resources, so that kinds
// installed since (CRDs of an earlier step) are found.
func (a *Applier) ResetMapper() { a.mapper.Reset() }
