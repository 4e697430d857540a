package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/shapes"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/predict"
)

// renderTime is scenario 6: rendering the bench app (1,000 objects)
// and an app of 4,000 objects of the same kinds (internal/shapes.Flat),
// roleout against `kubectl kustomize`, whose kustomize is the unpatched
// release. Both programs run as processes (start-up included); roleout's
// in-process render.Renderer.Build (uncached, its sandbox process
// included) is measured too, with a cold sandbox process started for each
// render and, as the agent renders, with a warm one ready.
func (e *env) renderTime(ctx context.Context) error {
	root := filepath.Join(e.work, "render-bench")
	if err := newWorkload("bench-render", true).write(filepath.Join(root, "overlay")); err != nil {
		return err
	}
	if err := shapes.Flat("overlay-4000", "bench-render", 4000).Write(root); err != nil {
		return err
	}
	for _, size := range []struct {
		objects, pairs int
		title, overlay string
		target         float64
	}{
		{objectsPerApp, e.pairs, "render (1,000 objects)", "overlay", 0.25},
		{4000, min(e.pairs, 3), "render (4,000 objects)", "overlay-4000", 0.1},
	} {
		if err := e.renderSize(ctx, size.title, root, size.overlay, size.objects, size.pairs, size.target); err != nil {
			return err
		}
	}
	return nil
}

// renderSize measures the render of root/overlay (objects objects) pairs
// times with each tool, and adds its rows under title: roleout's time at
// most target times kubectl's.
func (e *env) renderSize(ctx context.Context, title, root, overlay string, objects, pairs int, target float64) error {
	dir := filepath.Join(root, overlay)
	series := func(tool string) string { return fmt.Sprintf("Render/objects=%d/tool=%s", objects, tool) }
	tools := []string{"roleout-cli", "kubectl", "roleout", "roleout-warm"}
	// The agent's renderer keeps a warm sandbox process (render.Renderer.Spare):
	// each of its measured renders is handed to one that is ready, as a
	// render after a poll's wait is.
	warm := &render.Renderer{Spare: time.Hour}
	defer warm.Close()
	if _, err := warm.Build(ctx, render.Source{Root: root}, overlay, render.DefaultOptions()); err != nil {
		return fmt.Errorf("roleout-warm: %w", err)
	}
	for i := range pairs {
		for _, tool := range order(i, tools) {
			var d time.Duration
			var err error
			switch tool {
			case "roleout", "roleout-warm":
				r := &render.Renderer{}
				if tool == "roleout-warm" {
					r = warm
					if !warm.SpareReady(render.DefaultOptions(), time.Minute) {
						return fmt.Errorf("roleout-warm: no warm sandbox process a minute after a render")
					}
				}
				err = e.profiled(series(tool), func() error {
					start := time.Now()
					res, err := r.Build(ctx, render.Source{Root: root}, overlay, render.DefaultOptions())
					d = time.Since(start)
					if err == nil && (len(res.Objects) != objects || res.Warm != (r == warm)) {
						err = fmt.Errorf("%d objects (want %d), warm %v", len(res.Objects), objects, res.Warm)
					}
					return err
				})
			case "roleout-cli":
				var stderr bytes.Buffer
				cmd := exec.CommandContext(ctx, e.roleoutBin, "render", dir, "--root", root)
				cmd.Stderr = &stderr
				start := time.Now()
				err = cmd.Run()
				d = time.Since(start)
				if err != nil {
					err = fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
				}
			case "kubectl":
				var run toolRun
				run, err = e.kubectl(ctx, false, "kustomize", dir)
				d = run.elapsed
			}
			if err != nil {
				return fmt.Errorf("%s: %w", tool, err)
			}
			e.res.add(series(tool), d, nil)
		}
	}
	cli, k := e.res.get(series("roleout-cli")), e.res.get(series("kubectl"))
	lib, hot := e.res.get(series("roleout")), e.res.get(series("roleout-warm"))
	goal := fmt.Sprintf("≤ %g× its time", target)
	e.res.addRow(row{num: "6", scenario: title,
		measure: "time: the agent's render.Renderer.Build (a warm sandbox process ready, uncached) vs `kubectl kustomize DIR`",
		roleout: fmtDur(hot), peer: fmtDur(k), ratio: fmt.Sprintf("%.3f× kubectl's time", hot.med("ns/op")/k.med("ns/op")),
		target: goal, verdict: verdict(hot.med("ns/op") <= target*k.med("ns/op"))})
	e.res.addRow(row{num: "6",
		measure: "time: render.Renderer.Build (a cold sandbox process started for it, uncached) vs `kubectl kustomize DIR`",
		roleout: fmtDur(lib), peer: fmtDur(k), ratio: fmt.Sprintf("%.3f× kubectl's time", lib.med("ns/op")/k.med("ns/op")),
		target: goal, verdict: verdict(lib.med("ns/op") <= target*k.med("ns/op"))})
	e.res.addRow(row{num: "6", measure: "time: `roleout render DIR` (render, plan, predictions, printing) vs `kubectl kustomize DIR` (processes)",
		roleout: fmtDur(cli), peer: fmtDur(k), ratio: fmt.Sprintf("%.3f× kubectl's time", cli.med("ns/op")/k.med("ns/op")),
		target: "report", verdict: "—"})
	return nil
}

// prediction is scenario 9: predict.Predict over 1,000 Deployments (five
// copies of the app's 200, in five namespaces).
func (e *env) prediction(ctx context.Context) error {
	var deployments []*unstructured.Unstructured
	for i := range 5 {
		objs, err := newWorkload(fmt.Sprintf("predict-%d", i), true).objects()
		if err != nil {
			return err
		}
		for _, o := range objs {
			if predict.IsWorkload(o) {
				deployments = append(deployments, o)
			}
		}
	}
	const name = "Predict1000Deployments/roleout"
	for range e.pairs {
		var d time.Duration
		err := e.profiled(name, func() error {
			start := time.Now()
			for _, o := range deployments {
				if _, err := predict.Predict(o, predict.Options{}); err != nil {
					return err
				}
			}
			d = time.Since(start)
			return nil
		})
		if err != nil {
			return err
		}
		e.res.add(name, d, map[string]float64{"workloads/s": float64(len(deployments)) / d.Seconds()})
	}
	s := e.res.get(name)
	e.res.addRow(row{num: "9", scenario: "prediction", measure: fmt.Sprintf("workloads predicted per second (%d Deployments)", len(deployments)),
		roleout: fmtNum(s, "workloads/s", "/s"), peer: "—", ratio: "—", target: "report", verdict: "—"})
	e.res.addRow(row{num: "9", measure: "time for all of them", roleout: fmtDur(s), peer: "—", ratio: "—", target: "report", verdict: "—"})
	return nil
}
