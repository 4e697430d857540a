package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// BenchmarkRender compares one uncached render in the sandbox process
// with the same render in this process (what Build did before the
// sandbox), for a small app and for 1,000 objects. The sandbox is this
// test binary, or ROLEOUT_SANDBOX_EXE (a roleout binary: its start-up is
// what the agent pays).
func BenchmarkRender(b *testing.B) {
	for _, n := range []int{10, 1000} {
		root := b.TempDir()
		benchOverlay(b, root, "o", n)
		opts := DefaultOptions()
		b.Run(fmt.Sprintf("objects=%d/in-process", n), func(b *testing.B) {
			for b.Loop() {
				res := renderInChild(childRequest{Root: root, Overlay: "o", Options: opts}, newFetchGate(nil, opts.Limits))
				if res.Error != "" || len(res.Objects) != n {
					b.Fatalf("%d objects, error %q", len(res.Objects), res.Error)
				}
			}
		})
		b.Run(fmt.Sprintf("objects=%d/sandbox", n), func(b *testing.B) {
			r := &Renderer{Executable: os.Getenv("ROLEOUT_SANDBOX_EXE")}
			for b.Loop() {
				res, err := r.Build(context.Background(), Source{Root: root}, "o", opts)
				if err != nil || len(res.Objects) != n {
					b.Fatalf("%d objects, error %v", len(res.Objects), err)
				}
			}
		})
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
