package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/render"
)

// firstInstall is scenario 4: 1,000 objects into an empty namespace
// (created beforehand, not timed). roleout runs as a fresh agent on a
// fresh repository: fetch, render, plan, four waves with health waits,
// status commits. The namespaces of a round are deleted after it.
func (e *env) firstInstall(ctx context.Context) error {
	tools := append([]string{"roleout"}, peerNames...)
	for i := range e.pairs {
		var namespaces []string
		for _, tool := range order(i, tools) {
			ns := fmt.Sprintf("inst-%s-%d", tool, i)
			namespaces = append(namespaces, ns)
			if err := e.createNamespace(ctx, ns); err != nil {
				return err
			}
			if tool != "roleout" {
				p := &peerApp{wl: newWorkload(ns, true), dir: filepath.Join(e.work, ns)}
				run, err := e.peerApply(ctx, tool, p)
				if err != nil {
					return err
				}
				e.res.add("Install/tool="+tool, run.elapsed, run.metrics())
				if err := e.settle(ctx); err != nil {
					return err
				}
				continue
			}
			c, err := e.installWithAgent(ctx, ns)
			if err != nil {
				return err
			}
			e.res.add("Install/tool=roleout", c.applyPath(), c.metrics())
			e.res.add("Install/tool=roleout-agent-cycle", c.wall, c.metrics())
			if err := e.settle(ctx); err != nil {
				return err
			}
		}
		if err := e.deleteNamespaces(ctx, 5*time.Minute, namespaces...); err != nil {
			return err
		}
	}
	e.compareRows("4", "first install, 1,000 objects", "Install", 2.5)
	return nil
}

// installWithAgent installs the app into ns with a new agent and a new
// git repository, and returns the agent's first cycle.
func (e *env) installWithAgent(ctx context.Context, ns string) (cycle, error) {
	repo, err := e.git.NewRepo(ns)
	if err != nil {
		return cycle{}, err
	}
	if _, err := repo.Commit("main", "app", newWorkload(ns, true).filesAt("apps/"+ns)); err != nil {
		return cycle{}, err
	}
	cfg, _, err := agentConfig(repo.URL(), filepath.Join(e.work, "cache-"+ns), ns)
	if err != nil {
		return cycle{}, err
	}
	a, err := newBenchAgent(cfg, e.cluster.Config, e.log)
	if err != nil {
		return cycle{}, err
	}
	var c cycle
	err = e.profiled("Install/tool=roleout", func() (err error) { c, err = a.runOnce(ctx); return err })
	return c, err
}

// rawWorkers are the worker counts of the raw SSA loop.
var rawWorkers = []int{1, 2, 4, 8, 16, 32}

// limit is scenario 7: the API server's raw server-side-apply throughput
// (client-go dynamic client, N workers, no client-side rate limit)
// against roleout's applier (apply.Applier.Apply of the same 1,000
// objects, default options), each run updating every object (ConfigMap
// data, Deployment annotation; no new ReplicaSets). Raw and roleout work
// on their own namespaces.
func (e *env) limit(ctx context.Context) error {
	raw, ro := newWorkload("limit-raw", false), newWorkload("limit-roleout", false)
	rc := e.cluster.Config
	cfg := *rc
	cfg.QPS, cfg.Burst, cfg.UserAgent = -1, 0, "raw-ssa-bench"
	client, err := dynamic.NewForConfig(&cfg)
	if err != nil {
		return err
	}
	counter := &requestCounter{}
	roCfg := counter.wrap(rc)
	roCfg.QPS, roCfg.Burst = 0, 0
	applier, err := apply.New(roCfg, apply.DefaultOptions())
	if err != nil {
		return err
	}
	for _, w := range []*workload{raw, ro} {
		if err := e.createNamespace(ctx, w.namespace); err != nil {
			return err
		}
		objs, err := e.renderObjects(ctx, w)
		if err != nil {
			return err
		}
		if w == ro {
			_, err = applier.Apply(ctx, objs, apply.ApplyOptions{Labels: map[string]string{agent.AppLabel: w.namespace}})
		} else {
			_, err = rawApply(ctx, client, objs, 16)
		}
		if err != nil {
			return err
		}
	}
	tools := []string{"roleout"}
	for _, n := range rawWorkers {
		tools = append(tools, fmt.Sprintf("raw-%d", n))
	}
	for i := range e.pairs {
		for _, tool := range order(i, tools) {
			w := raw
			if tool == "roleout" {
				w = ro
			}
			w.bumpAll()
			objs, err := e.renderObjects(ctx, w)
			if err != nil {
				return err
			}
			var d time.Duration
			if tool == "roleout" {
				err = e.profiled("Limit/tool=roleout", func() error {
					start := time.Now()
					_, err := applier.Apply(ctx, objs, apply.ApplyOptions{Labels: map[string]string{agent.AppLabel: w.namespace}})
					d = time.Since(start)
					return err
				})
			} else {
				var workers int
				fmt.Sscanf(tool, "raw-%d", &workers)
				d, err = rawApply(ctx, client, objs, workers)
			}
			if err != nil {
				return err
			}
			e.res.add("Limit/tool="+tool, d, map[string]float64{"objs/s": float64(len(objs)) / d.Seconds()})
			if err := e.settle(ctx); err != nil {
				return err
			}
		}
	}
	best, bestTool := 0.0, ""
	for _, n := range rawWorkers {
		name := fmt.Sprintf("raw-%d", n)
		if v := e.res.get("Limit/tool=" + name).med("objs/s"); v > best {
			best, bestTool = v, name
		}
	}
	r := e.res.get("Limit/tool=roleout")
	e.res.addRow(row{num: "7", scenario: "the limit: raw SSA throughput (1,000 updates)", measure: "objects/s: roleout applier vs best raw client-go (N workers)",
		roleout: fmtNum(r, "objs/s", "/s"), peer: fmt.Sprintf("%s (%s)", fmtNum(e.res.get("Limit/tool="+bestTool), "objs/s", "/s"), bestTool),
		ratio: fmt.Sprintf("%.0f %%", 100*r.med("objs/s")/best), target: "≥ 70 %", verdict: verdict(r.med("objs/s") >= 0.7*best)})
	var curve string
	for _, n := range rawWorkers {
		curve += fmt.Sprintf("N=%d: %s/s; ", n, num(e.res.get(fmt.Sprintf("Limit/tool=raw-%d", n)).med("objs/s")))
	}
	e.res.addRow(row{num: "7", measure: "raw throughput by workers (median)", roleout: "—", peer: curve, ratio: "—", target: "report", verdict: "—"})
	return nil
}

// renderObjects renders w's overlay with roleout's renderer (not timed).
func (e *env) renderObjects(ctx context.Context, w *workload) ([]*unstructured.Unstructured, error) {
	dir := filepath.Join(e.work, "render-"+w.namespace)
	if err := w.write(filepath.Join(dir, "overlay")); err != nil {
		return nil, err
	}
	res, err := (&render.Renderer{}).Build(ctx, render.Source{Root: dir}, "overlay", render.DefaultOptions())
	return res.Objects, err
}

// rawApply server-side applies objs (ConfigMaps and Deployments) with n
// workers and returns the time it took.
func rawApply(ctx context.Context, client dynamic.Interface, objs []*unstructured.Unstructured, n int) (time.Duration, error) {
	gvr := map[string]schema.GroupVersionResource{
		"ConfigMap":  {Version: "v1", Resource: "configmaps"},
		"Deployment": {Group: "apps", Version: "v1", Resource: "deployments"},
	}
	work := make(chan *unstructured.Unstructured)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	start := time.Now()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range work {
				_, err := client.Resource(gvr[o.GetKind()]).Namespace(o.GetNamespace()).Apply(ctx, o.GetName(), o,
					metav1.ApplyOptions{FieldManager: "raw-bench", Force: true})
				if err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("%s/%s: %w", o.GetKind(), o.GetName(), err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, o := range objs {
		work <- o
	}
	close(work)
	wg.Wait()
	return time.Since(start), first
}
