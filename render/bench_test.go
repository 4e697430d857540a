package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// benchOverlay writes an overlay of n Deployments at root/name.
func benchOverlay(b *testing.B, root, name string, n int) {
	b.Helper()
	var docs strings.Builder
	for i := range n {
		fmt.Fprintf(&docs, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d%d, labels: {app: d%d}}\n"+
			"spec:\n  selector: {matchLabels: {app: d%d}}\n  template:\n    metadata: {labels: {app: d%d}}\n"+
			"    spec: {containers: [{name: c, image: \"img:%d\", resources: {requests: {cpu: 100m, memory: 64Mi}}}]}\n", i, i, i, i, i)
	}
	writeFile(b, filepath.Join(root, name, "kustomization.yaml"), "namespace: bench\ncommonLabels: {tier: bench}\nresources: [objects.yaml]\n")
	writeFile(b, filepath.Join(root, name, "objects.yaml"), docs.String())
}

// BenchmarkRender compares one uncached render in a cold sandbox
// process, and in a warm spare (Renderer.Spare) that is ready, with the
// same render in this process with kustomize's OpenAPI schema parsed
// already (what a renderer living in the agent's process would pay), for
// a small app and for 1,000 objects, without and with a strategic-merge
// patch (which needs the schema). warm minus in-process is the sandbox's
// own overhead. The sandbox is this test binary, or ROLEOUT_SANDBOX_EXE
// (a roleout binary: its start-up is what the agent pays).
func BenchmarkRender(b *testing.B) {
	for _, n := range []int{10, 1000} {
		root := b.TempDir()
		benchOverlay(b, root, "plain", n)
		benchOverlay(b, root, "patched", n)
		writeFile(b, filepath.Join(root, "patched", "kustomization.yaml"), "namespace: bench\ncommonLabels: {tier: bench}\nresources: [objects.yaml]\n"+
			"patches:\n- path: patch.yaml\n  target: {kind: Deployment}\n")
		writeFile(b, filepath.Join(root, "patched", "patch.yaml"), "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: any}\n"+
			"spec:\n  template:\n    spec:\n      containers:\n      - name: c\n        env: [{name: TIER, value: bench}]\n")
		opts := DefaultOptions()
		for _, overlay := range []string{"plain", "patched"} {
			check := func(b *testing.B, objs int, err error) {
				if err != nil || objs != n {
					b.Fatalf("%d objects, error %v", objs, err)
				}
			}
			b.Run(fmt.Sprintf("objects=%d/%s/in-process", n, overlay), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					_ = openapi.Schema()
					b.StartTimer()
					res := renderInChild(childRequest{Root: root, Overlay: overlay, Options: opts}, newFetchGate(nil, opts.Limits))
					if res.Error != "" {
						b.Fatal(res.Error)
					}
					check(b, len(res.Objects), nil)
				}
			})
			b.Run(fmt.Sprintf("objects=%d/%s/sandbox", n, overlay), func(b *testing.B) {
				r := &Renderer{Executable: os.Getenv("ROLEOUT_SANDBOX_EXE")}
				for b.Loop() {
					res, err := r.Build(context.Background(), Source{Root: root}, overlay, opts)
					check(b, len(res.Objects), err)
				}
			})
			b.Run(fmt.Sprintf("objects=%d/%s/warm", n, overlay), func(b *testing.B) {
				r := &Renderer{Executable: os.Getenv("ROLEOUT_SANDBOX_EXE"), Spare: time.Minute}
				defer r.Close()
				_, err := r.Build(context.Background(), Source{Root: root}, overlay, opts)
				check(b, n, err)
				for b.Loop() {
					b.StopTimer()
					if !r.SpareReady(opts, time.Minute) {
						b.Fatal("no warm spare")
					}
					b.StartTimer()
					res, err := r.Build(context.Background(), Source{Root: root}, overlay, opts)
					check(b, len(res.Objects), err)
					if !res.Warm {
						b.Fatal("not rendered warm")
					}
				}
			})
		}
	}
}

// BenchmarkTwentyApps renders 20 apps of 100 objects each after one
// commit (nothing cached), one process at a time and one per CPU.
func BenchmarkTwentyApps(b *testing.B) {
	root := b.TempDir()
	for i := range 20 {
		benchOverlay(b, root, fmt.Sprintf("app%d", i), 100)
	}
	for _, procs := range []int{1, 0} {
		name := "sequential"
		if procs == 0 {
			name = "parallel"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				r := &Renderer{Processes: procs, Executable: os.Getenv("ROLEOUT_SANDBOX_EXE")}
				errs := make(chan error, 20)
				for i := range 20 {
					go func() {
						_, err := r.Build(context.Background(), Source{Root: root}, fmt.Sprintf("app%d", i), DefaultOptions())
						errs <- err
					}()
				}
				for range 20 {
					if err := <-errs; err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
