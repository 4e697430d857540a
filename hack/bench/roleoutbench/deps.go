package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// requestCounter counts the HTTP requests a client makes, by method.
type requestCounter struct {
	mu       sync.Mutex
	byMethod map[string]int
}

// wrap returns a copy of cfg whose transport counts into c.
func (c *requestCounter) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			c.mu.Lock()
			if c.byMethod == nil {
				c.byMethod = map[string]int{}
			}
			c.byMethod[req.Method]++
			c.mu.Unlock()
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// reset sets the counts to zero.
func (c *requestCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byMethod = map[string]int{}
}

// counts returns the total and the writes (every method but GET).
func (c *requestCounter) counts() (total, writes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for m, n := range c.byMethod {
		total += n
		if m != http.MethodGet {
			writes += n
		}
	}
	return total, writes
}

// phases adds up the time an agent spends in each of its dependencies.
type phases struct {
	mu sync.Mutex
	d  map[string]time.Duration
}

// since adds the time since start to phase.
func (p *phases) since(phase string, start time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.d == nil {
		p.d = map[string]time.Duration{}
	}
	p.d[phase] += time.Since(start)
}

// take returns the times so far and starts again from zero.
func (p *phases) take() map[string]time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.d
	p.d = map[string]time.Duration{}
	if out == nil {
		out = map[string]time.Duration{}
	}
	return out
}

// timedFetcher times the git source's Fetch and Head.
type timedFetcher struct {
	agent.Fetcher
	clk *phases
}

// Fetch times the wrapped Fetch as phase "fetch".
func (f timedFetcher) Fetch(ctx context.Context) (sources.Snapshot, error) {
	defer f.clk.since("fetch", time.Now())
	return f.Fetcher.Fetch(ctx)
}

// Head times the wrapped Head as phase "fetch".
func (f timedFetcher) Head(ctx context.Context) (sources.SourceRevision, error) {
	defer f.clk.since("fetch", time.Now())
	return f.Fetcher.Head(ctx)
}

// timedRenderer is the agent's own renderer (agent.NewDeps), timed as
// phase "render".
type timedRenderer struct {
	agent.Renderer
	clk *phases
}

// Render times the wrapped Render.
func (r timedRenderer) Render(ctx context.Context, snap sources.Snapshot, app config.App) ([]*unstructured.Unstructured, error) {
	defer r.clk.since("render", time.Now())
	return r.Renderer.Render(ctx, snap, app)
}

// builds returns how many kustomize builds the agent's renderer ran.
func (r timedRenderer) builds() int {
	if b, ok := r.Renderer.(interface{ Builds() int }); ok {
		return b.Builds()
	}
	return 0
}

// timedPlanner is the agent's own planner, timed as phase "plan".
type timedPlanner struct {
	agent.Planner
	clk *phases
}

// Plan times the wrapped Plan.
func (p timedPlanner) Plan(objs []*unstructured.Unstructured, opts plan.Options, facts plan.Facts) (*model.Plan, error) {
	defer p.clk.since("plan", time.Now())
	return p.Planner.Plan(objs, opts, facts)
}

// timedApplier times the applier's calls by phase: "apply", "health",
// "observe", "plan-reads" (collision counts and CRDs read for the plan)
// and "diff".
type timedApplier struct {
	agent.Cluster
	clk *phases
}

// Apply times the wrapped Apply.
func (a timedApplier) Apply(ctx context.Context, objs []*unstructured.Unstructured, opts apply.ApplyOptions) ([]apply.Result, error) {
	defer a.clk.since("apply", time.Now())
	return a.Cluster.Apply(ctx, objs, opts)
}

// WaitHealthy times the wrapped WaitHealthy.
func (a timedApplier) WaitHealthy(ctx context.Context, objs []*unstructured.Unstructured, opts apply.WaitOptions) error {
	defer a.clk.since("health", time.Now())
	return a.Cluster.WaitHealthy(ctx, objs, opts)
}

// ObserveAll times the wrapped ObserveAll.
func (a timedApplier) ObserveAll(ctx context.Context, objs []*unstructured.Unstructured) map[object.Ref]apply.ObserveResult {
	defer a.clk.since("observe", time.Now())
	return a.Cluster.ObserveAll(ctx, objs)
}

// CollisionCounts times the wrapped CollisionCounts.
func (a timedApplier) CollisionCounts(ctx context.Context, objs []*unstructured.Unstructured) map[object.Ref]*int32 {
	defer a.clk.since("plan-reads", time.Now())
	return a.Cluster.CollisionCounts(ctx, objs)
}

// CRDFor times the wrapped CRDFor.
func (a timedApplier) CRDFor(ctx context.Context, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	defer a.clk.since("plan-reads", time.Now())
	return a.Cluster.CRDFor(ctx, o)
}

// Diff times the wrapped Diff.
func (a timedApplier) Diff(ctx context.Context, objs []*unstructured.Unstructured, opts apply.DiffOptions) ([]model.ObjectDiff, error) {
	defer a.clk.since("diff", time.Now())
	return a.Cluster.Diff(ctx, objs, opts)
}

// timedStatus times the status branch's reads and commits.
type timedStatus struct {
	agent.StatusStore
	clk *phases
}

// Read times the wrapped Read as phase "status".
func (s timedStatus) Read(ctx context.Context, dir string, skip ...string) (status.Read, error) {
	defer s.clk.since("status", time.Now())
	return s.StatusStore.Read(ctx, dir, skip...)
}

// Commit times the wrapped Commit as phase "status".
func (s timedStatus) Commit(ctx context.Context, files map[string][]byte, msg string) (string, error) {
	defer s.clk.since("status", time.Now())
	return s.StatusStore.Commit(ctx, files, msg)
}

// benchAgent is a roleout agent wired as agent.New wires it (git source,
// kustomize renderer, role planner, server-side applier, status branch),
// with every dependency timed and the API requests counted.
type benchAgent struct {
	*agent.Agent
	cfg      *config.Config
	renderer timedRenderer
	applier  *apply.Applier
	clk      *phases
	api      *requestCounter
}

// agentConfig parses an agent configuration for one git repository and
// apps (name → overlay path; the namespace is the name), as a user would
// write it.
func agentConfig(url, cacheDir string, apps ...string) (*config.Config, string, error) {
	text := fmt.Sprintf("apiVersion: roleout.dev/v1alpha1\nkind: AgentConfig\nsource: {url: %q, branch: main}\ncacheDir: %q\napps:\n", url, cacheDir)
	for _, name := range apps {
		text += fmt.Sprintf("- {name: %s, path: apps/%s, namespace: %s, timeout: 3m}\n", name, name, name)
	}
	cfg, err := config.Parse([]byte(text), "bench agent config")
	return cfg, text, err
}

// newBenchAgent returns a benchAgent for cfg against the cluster restCfg
// reaches. The rest.Config's QPS and burst are cleared so that the
// applier sets its own, as for a kubeconfig.
func newBenchAgent(cfg *config.Config, restCfg *rest.Config, log logrus.FieldLogger) (*benchAgent, error) {
	b := &benchAgent{cfg: cfg, clk: &phases{}, api: &requestCounter{}}
	rc := b.api.wrap(restCfg)
	rc.QPS, rc.Burst, rc.UserAgent = 0, 0, ""
	deps, err := agent.NewDeps(context.Background(), cfg, rc, log)
	if err != nil {
		return nil, err
	}
	ac, ok := deps.Cluster.(agent.ApplierCluster)
	if !ok {
		return nil, fmt.Errorf("agent.NewDeps wired a %T, not an agent.ApplierCluster", deps.Cluster)
	}
	b.applier = ac.Applier
	b.renderer = timedRenderer{Renderer: deps.Renderer, clk: b.clk}
	deps.Fetcher = timedFetcher{Fetcher: deps.Fetcher, clk: b.clk}
	deps.Renderer = b.renderer
	deps.Planner = timedPlanner{Planner: deps.Planner, clk: b.clk}
	deps.Cluster = timedApplier{Cluster: deps.Cluster, clk: b.clk}
	deps.Status = timedStatus{StatusStore: deps.Status, clk: b.clk}
	b.Agent = agent.NewWithDeps(cfg, deps, log)
	return b, nil
}

// cycle is what one RunOnce did.
type cycle struct {
	wall    time.Duration
	phases  map[string]time.Duration
	renders int
	api     int
	writes  int
}

// applyPath is the part of a cycle that does what kubectl apply -k does:
// render, plan (with its reads) and apply, without health waits,
// observation and status.
func (c cycle) applyPath() time.Duration {
	return c.phases["render"] + c.phases["plan"] + c.phases["plan-reads"] + c.phases["apply"]
}

// runOnce runs one reconcile cycle and returns what it did.
func (b *benchAgent) runOnce(ctx context.Context) (cycle, error) {
	b.clk.take()
	b.api.reset()
	builds := b.renderer.builds()
	start := time.Now()
	err := b.RunOnce(ctx)
	c := cycle{wall: time.Since(start), phases: b.clk.take(), renders: b.renderer.builds() - builds}
	c.api, c.writes = b.api.counts()
	return c, err
}

// metrics returns a cycle's figures for the benchmark file.
func (c cycle) metrics() map[string]float64 {
	m := map[string]float64{"api-req/op": float64(c.api), "api-writes/op": float64(c.writes), "renders/op": float64(c.renders),
		"apply-path-ns/op": float64(c.applyPath().Nanoseconds())}
	rest := c.wall
	for p, d := range c.phases {
		m[p+"-ns/op"] = float64(d.Nanoseconds())
		rest -= d
	}
	// other is the time in none of the timed dependencies: the agent's own
	// work (status encoding, YAML parsing of the status files, …).
	m["other-ns/op"] = float64(rest.Nanoseconds())
	return m
}
