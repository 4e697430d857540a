package agent

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/drift"
	"github.com/roleout/roleout/internal/backoff"
	"github.com/roleout/roleout/internal/liveness"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/sharding"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/statusstore"
)

// Deps are the parts an Agent drives. New wires the real ones; tests pass
// fakes.
type Deps struct {
	Fetcher  Fetcher
	Renderer Renderer
	Planner  Planner
	// Cluster is the agent's own cluster: the apps that name none go
	// there, and it holds every app's role revisions and the control
	// ConfigMap.
	Cluster Cluster
	Status  StatusStore
	// Clock tells the time for rollout windows and liveness; nil is
	// time.Now.
	Clock func() time.Time
	// PullRequests lists and fetches pull-request heads for previews;
	// nil turns previews off.
	PullRequests PullRequests
	// ClusterFor returns the cluster an app names with
	// apps[].kubeconfig or apps[].kubeconfigSecret; nil allows no such
	// apps.
	ClusterFor func(ctx context.Context, app config.App) (Cluster, error)
	// PreviewClusterFor returns what previews of app read: its cluster,
	// as serviceAccount ("namespace/name"); nil lets previews read no
	// cluster.
	PreviewClusterFor func(ctx context.Context, app config.App, serviceAccount string) (ClusterReader, error)
	// Masker masks Secret values in plans, records and diffs; nil is a
	// random key for this Agent value only (internal/secrets.Ephemeral),
	// fit for commands that write no git.
	Masker *secrets.Masker
	// Control reads the install's control ConfigMap (roleout suspend,
	// resume, reconcile); nil: no app is ever suspended.
	Control control.Source
	// Backoffs are the waits after failures; zero: DefaultBackoffs.
	Backoffs Backoffs
	// Reporter hears of previews and rollouts (the forge,
	// notifications); nil tells no one.
	Reporter Reporter
}

func (d Deps) now() time.Time {
	if d.Clock != nil {
		return d.Clock()
	}
	return time.Now()
}

// Agent reconciles the apps of one configuration: poll → fetch → render →
// plan → apply → report (docs/design.md, "The reconcile cycle").
type Agent struct {
	cfg  *config.Config
	deps Deps
	log  logrus.FieldLogger
	// sourceURL is the source URL with credentials redacted.
	sourceURL string

	mu *sync.Mutex
	// apps is what the agent keeps of each app between reconciles
	// (guarded by mu; appState).
	apps    map[string]*appState
	trigger chan struct{}
	metrics *metrics
	dryRun  bool
	// backoffRetries makes retries of a failed commit wait (status.App
	// .RetryAfter); Run sets it, as the loop it starts is the agent's
	// life. RunOnce alone retries at once.
	backoffRetries bool
	// synced holds, by status-branch path, the digest of each role
	// revision this agent put into the cluster (guarded by mu).
	synced map[string][32]byte
	// live is what /healthz reports of the loop.
	live *liveness.Loop
	// flights is what each rollout is applying now (Flights).
	flights *flights
	// elect is this replica's part in leader election, for /readyz.
	elect *sharding.Election
	// drift watches what the apps applied (Run) and keeps their drift.
	drift *drift.Tracker
	// nextCfg is a configuration Reload accepted, taken between polls.
	nextCfg *config.Config
	// gone holds the generated apps whose removal is recorded, and
	// skipped what the generators last skipped (generators.go; guarded
	// by mu).
	gone    map[string]bool
	skipped map[string]bool
	// indexed is the generated apps the status branch's index holds (nil
	// before it is read), and appsChanged hears the served apps change
	// (OnAppsChanged).
	indexed     []generatedApp
	appsChanged func([]config.App)
	// control is the copy of the control ConfigMap: which apps are
	// suspended, which reconciles were requested.
	control *control.Copy
	// owner, when set (RunSharded), tells which apps this replica holds;
	// replica is the same, for readiness and reloads (guarded by mu).
	owner   Owner
	replica *sharding.Replica
	// queue orders the pull-request heads waiting for previews; with
	// previewsApart (Run) a worker of their own makes them, off the poll.
	queue         *previewQueue
	previewsApart bool
}

// New returns an Agent for cfg that applies to the cluster restCfg
// reaches, with the real parts wired in (NewDeps).
func New(ctx context.Context, cfg *config.Config, restCfg *rest.Config, log logrus.FieldLogger) (*Agent, error) {
	deps, err := NewDeps(ctx, cfg, restCfg, log)
	if err != nil {
		return nil, err
	}
	return NewWithDeps(cfg, deps, log), nil
}

// NewDryRun returns an Agent for cfg that plans and diffs every app
// against the cluster and writes nothing, to the cluster or to git: it
// reads the mask key Secret but never creates it (without one, Secrets
// are masked with a key for this run only), and makes no status and no
// previews.
func NewDryRun(ctx context.Context, cfg *config.Config, restCfg *rest.Config, log logrus.FieldLogger) (*Agent, error) {
	kube, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return nil, err
	}
	masker, err := control.MaskerOf(ctx, cfg, kube)
	if err != nil {
		return nil, err
	}
	deps, err := newDeps(ctx, cfg, restCfg, kube, log, masker)
	if err != nil {
		return nil, err
	}
	a := NewWithDeps(cfg, deps, log)
	a.dryRun = true
	return a, nil
}

// NewDeps wires the real parts of an Agent for cfg against the cluster
// restCfg reaches: the git source (with its credentials and signature
// verification), the sandboxed kustomize renderer, the role planner, the
// server-side applier, the clusters apps name, the status branch, pull
// requests and the control ConfigMap. It reads the install's mask key
// (masks.keyFile, or the key Secret it creates once in its namespace).
// A program that observes the parts (the benchmarks) wraps them and
// passes them to NewWithDeps; New does no more than that.
func NewDeps(ctx context.Context, cfg *config.Config, restCfg *rest.Config, log logrus.FieldLogger) (Deps, error) {
	restCfg = fenced(restCfg)
	kube, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return Deps{}, err
	}
	masker, err := control.LoadMasker(ctx, cfg.Masks, kube, cfg.Status.ClusterRevisions.AgentNamespace())
	if err != nil {
		return Deps{}, err
	}
	return newDeps(ctx, cfg, restCfg, kube, log, masker)
}

// newDeps wires NewDeps' parts with masker, on kube (restCfg's client).
func newDeps(ctx context.Context, cfg *config.Config, restCfg *rest.Config, kube kubernetes.Interface, log logrus.FieldLogger, masker *secrets.Masker) (Deps, error) {
	src, err := sources.NewGitSource(sourceOptions(cfg))
	if err != nil {
		return Deps{}, err
	}
	ns := cfg.Status.ClusterRevisions.AgentNamespace()
	applyOpts := apply.DefaultOptions()
	applyOpts.Masker = masker
	if cfg.Apply.Concurrency > 0 {
		applyOpts.Concurrency = cfg.Apply.Concurrency
	}
	applier, err := newApplierCluster(restCfg, applyOpts)
	if err != nil {
		return Deps{}, err
	}
	cl, err := newClusters(restCfg, applyOpts, cfg.Clusters)
	if err != nil {
		return Deps{}, err
	}
	branch := statusstore.New(AnchoredStatusOptions(cfg, kube))
	reporter, err := newReporter(ctx, cfg, branch, log)
	if err != nil {
		return Deps{}, err
	}
	return Deps{
		ClusterFor:        cl.clusterFor,
		PreviewClusterFor: previewAppliers(applier, cl.clusterFor),
		Fetcher:           src,
		Renderer:          newKustomizeRenderer(cfg.RenderProcesses, log),
		Planner:           rolePlanner{},
		Cluster:           applier,
		Status:            branch,
		Reporter:          reporter,
		PullRequests:      gitPullRequests{src: src},
		Masker:            masker,
		Control:           control.Kube(kube, ns, log),
	}, nil
}

// clusterFor returns app's cluster: the one it names (apps[].kubeconfig,
// kubeconfigSecret), else the agent's own.
func (a *Agent) clusterFor(ctx context.Context, app config.App) (Cluster, error) {
	if app.Kubeconfig == "" && app.KubeconfigSecret == nil {
		return a.deps.Cluster, nil
	}
	if a.deps.ClusterFor == nil {
		return nil, fmt.Errorf("apps[].kubeconfig is not supported here")
	}
	c, err := a.deps.ClusterFor(ctx, app)
	if err != nil {
		return nil, fmt.Errorf("cluster of app %s: %w", app.Name, err)
	}
	return c, nil
}

// NewWithDeps returns an Agent for cfg driving deps.
func NewWithDeps(cfg *config.Config, deps Deps, log logrus.FieldLogger) *Agent {
	if deps.Masker == nil {
		deps.Masker = secrets.Ephemeral()
	}
	if deps.Backoffs == (Backoffs{}) {
		deps.Backoffs = DefaultBackoffs()
	}
	a := &Agent{cfg: cfg, deps: deps, log: log, sourceURL: sources.RedactURL(cfg.Source.URL), mu: &sync.Mutex{}, apps: map[string]*appState{}, synced: map[string][32]byte{}, gone: map[string]bool{}, skipped: map[string]bool{}, trigger: make(chan struct{}, 1), metrics: newMetrics(),
		live: &liveness.Loop{Bound: cfg.MaxPollAge(deps.now())}, elect: &sharding.Election{}, flights: newFlights(), queue: newPreviewQueue()}
	a.drift = drift.New(log, deps.now, a.Trigger, deps.Backoffs.Heal)
	a.control = control.NewCopy(deps.Control, log, a.servesApp, a.controlChanged)
	a.metrics.registry.MustRegister(a.drift.Metric)
	return a
}

// Results returns the status each app was left in by the last
// reconcile, in config order; apps not reconciled are left out.
func (a *Agent) Results() []*status.App {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*status.App
	for _, app := range a.cfg.Apps {
		if s := a.apps[app.Name]; s != nil && s.result != nil {
			st := s.result
			out = append(out, st)
		}
	}
	return out
}

// Run reconciles on the configured schedule until ctx ends, and at once
// whenever Trigger is called or the control ConfigMap changes for one of
// its apps (roleout suspend, resume, reconcile). After a failure it
// retries with exponential backoff (10s, 20s, … up to 5m) instead of
// waiting for the schedule; an interval gets up to 10% jitter so that
// agents started together spread out. A poll that makes no progress for the liveness bound
// (healthz.maxPollAge) is stopped, so a hung fetch or render cannot hold
// the loop; /healthz fails while no poll has completed within it.
func (a *Agent) Run(ctx context.Context) error {
	sched, err := a.cfg.Schedule.Cadence()
	if err != nil {
		return err
	}
	a.backoffRetries = true
	a.previewsApart = true
	if err := render.NetworkIsolation(""); err != nil {
		a.log.WithError(err).Warn("renders that may reach no host run without a network namespace of their own, behind the fetch gate alone; " +
			"previews, and apps with render.requireNetworkIsolation, refuse to render")
	} else {
		a.log.Info("renders that may reach no host run in a network namespace of their own")
	}
	dctx, stopWatches := context.WithCancel(ctx)
	var previewing sync.WaitGroup
	previewing.Go(func() { a.runPreviews(dctx) })
	defer previewing.Wait()
	defer stopWatches()
	a.drift.Start(dctx)
	a.control.Start(dctx)
	a.live.Begin(a.deps.now())
	defer a.live.End()
	failures := 0
	for {
		a.takeReload()
		started := time.Now()
		err := a.poll(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			failures++
		} else {
			failures = 0
		}
		wait := nextWait(sched, time.Now(), failures, a.deps.Backoffs.Poll, rand.Int64N)
		if err != nil {
			a.log.WithError(err).WithField("retry in", wait.Round(time.Second)).Error("reconcile failed")
		}
		a.log.WithField("duration", time.Since(started).Round(time.Millisecond)).Debug("reconcile done")
		select {
		case <-ctx.Done():
			return nil
		case <-a.trigger:
			a.log.Info("poll triggered")
		case <-time.After(wait):
		}
	}
}

// Close releases what the agent keeps outside its own process: the warm
// sandbox processes of its renderer (render.Renderer.Spare) and their
// directories, and the lock on its local copy of the status branch. The
// agent renders and records no more after it.
func (a *Agent) Close() {
	if c, ok := a.deps.Renderer.(interface{ Close() }); ok {
		c.Close()
	}
	if c, ok := a.deps.Status.(interface{ Close() }); ok {
		c.Close()
	}
}

// poll runs one cycle (RunOnce) under a watchdog that stops it when it
// makes no progress for the liveness bound (a wave that becomes healthy
// is progress, so a long rollout is never cut off), and records it as
// completed unless the watchdog stopped it.
func (a *Agent) poll(ctx context.Context) error {
	pctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := a.live.Watch(cancel)
	err := a.RunOnce(pctx)
	stop()
	if pctx.Err() != nil {
		if cause := context.Cause(pctx); ctx.Err() == nil && cause != nil {
			err = errors.Join(err, cause)
		}
		return err
	}
	a.live.Polled(a.deps.now())
	return err
}

// nextWait is the wait after a poll at now until the next one: until the
// schedule's next time, plus up to 10% jitter on an interval (drawn with
// rnd, rand.Int64N's shape), and at most the backoff after failures
// failed polls in a row.
func nextWait(sched config.Cadence, now time.Time, failures int, poll backoff.Doubling, rnd func(int64) int64) time.Duration {
	wait := sched.Next(now).Sub(now)
	if _, ok := sched.(config.Every); ok {
		wait += time.Duration(rnd(int64(wait)/10 + 1))
	}
	if failures > 0 {
		wait = min(wait, poll.After(failures))
	}
	return wait
}

// Trigger makes a running Run poll now (the hook endpoint calls it). It
// never blocks; triggers that arrive while one is pending merge.
func (a *Agent) Trigger() {
	select {
	case a.trigger <- struct{}{}:
	default:
	}
}
