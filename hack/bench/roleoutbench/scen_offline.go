package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/predict"
)

// renderTime is scenario 6: rendering the overlay, roleout against
// `kubectl kustomize`. Both programs run as processes (start-up
// included); roleout's in-process render.Renderer.Build (uncached) is
// measured too.
func (e *env) renderTime(ctx context.Context) error {
	root := filepath.Join(e.work, "render-bench")
	dir := filepath.Join(root, "overlay")
	if err := newWorkload("bench-render", true).write(dir); err != nil {
		return err
	}
	tools := []string{"roleout-cli", "kubectl", "roleout"}
	for i := range e.pairs {
		for _, tool := range order(i, tools) {
			var d time.Duration
			var err error
			switch tool {
			case "roleout":
				err = e.profiled("Render/tool=roleout", func() error {
					start := time.Now()
					_, err := (&render.Renderer{}).Build(ctx, render.Source{Root: root}, "overlay", render.DefaultOptions())
					d = time.Since(start)
					return err
				})
			case "roleout-cli":
				start := time.Now()
				err = exec.CommandContext(ctx, e.roleoutBin, "render", dir, "--root", root).Run()
				d = time.Since(start)
			case "kubectl":
				var run toolRun
				run, err = e.kubectl(ctx, false, "kustomize", dir)
				d = run.elapsed
			}
			if err != nil {
				return fmt.Errorf("%s: %w", tool, err)
			}
			e.res.add("Render/tool="+tool, d, nil)
		}
	}
	cli, k, lib := e.res.get("Render/tool=roleout-cli"), e.res.get("Render/tool=kubectl"), e.res.get("Render/tool=roleout")
	e.res.addRow(row{num: "6", scenario: "render (1,000 objects)", measure: "time: `roleout render DIR` vs `kubectl kustomize DIR` (processes)",
		roleout: fmtDur(cli), peer: fmtDur(k), ratio: fmt.Sprintf("%.2f× kubectl's time", cli.med("ns/op")/k.med("ns/op")),
		target: "≤ 1.2× its time", verdict: verdict(cli.med("ns/op") <= 1.2*k.med("ns/op"))})
	e.res.addRow(row{num: "6", measure: "time: render.Renderer.Build in process (no start-up) vs `kubectl kustomize DIR`",
		roleout: fmtDur(lib), peer: fmtDur(k), ratio: fmt.Sprintf("%.2f× kubectl's time", lib.med("ns/op")/k.med("ns/op")),
		target: "≤ 1.2× its time", verdict: verdict(lib.med("ns/op") <= 1.2*k.med("ns/op"))})
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
