package render

import (
	"fmt"
	"testing"

	"github.com/roleout/roleout/internal/shapes"
)

// BenchmarkKustomize renders the shapes of internal/shapes in this
// process (no sandbox), at several sizes: what the renderer itself costs.
// With -modfile naming a copy of go.mod without the kustomize replace
// (and a copy of go.sum beside it), the same benchmark measures the
// unpatched release (docs/benchmarks.md).
func BenchmarkKustomize(b *testing.B) {
	for _, shape := range []string{"flat", "rich"} {
		for _, n := range []int{1000, 2000, 4000, 8000} {
			b.Run(fmt.Sprintf("shape=%s/objects=%d", shape, n), func(b *testing.B) {
				root := b.TempDir()
				files, overlay := shapes.Flat("o", "bench", n), "o"
				if shape == "rich" {
					files, overlay = shapes.Rich("r", n), "r/overlay"
				}
				if err := files.Write(root); err != nil {
					b.Fatal(err)
				}
				opts := DefaultOptions()
				for b.Loop() {
					res := renderInChild(childRequest{Root: root, Overlay: overlay, Options: opts}, newFetchGate(nil, opts.Limits))
					if res.Error != "" || len(res.Objects) < n*9/10 {
						b.Fatalf("%d objects, error %q", len(res.Objects), res.Error)
					}
				}
			})
		}
	}
}
