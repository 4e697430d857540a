package schema

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"testing"

	"github.com/roleout/roleout/internal/testobjects"
)

// TestBuiltinCRDsAreTheModules checks each built-in CRD against its
// module: the version is the one go.mod selects, which the binary links,
// and the copy equals the module's file byte for byte, read from the
// module cache (go list -m -json).
func TestBuiltinCRDsAreTheModules(t *testing.T) {
	for _, c := range BuiltinCRDSources {
		t.Run(path.Base(c.Path), func(t *testing.T) {
			mod := testobjects.GoModule(t, ".", c.Module)
			if mod.Version != c.Version {
				t.Errorf("roleout links %s %s, but its built-in CRD is from %s: copy %s of %s %s to crds/ and set Version",
					c.Module, mod.Version, c.Version, c.Path, c.Module, mod.Version)
			}
			if mod.Dir == "" {
				t.Fatalf("%s %s is not in the module cache (go mod download %s)", c.Module, mod.Version, c.Module)
			}
			want, err := os.ReadFile(filepath.Join(mod.Dir, filepath.FromSlash(c.Path)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := crdFiles.ReadFile("crds/" + path.Base(c.Path))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("crds/%s differs from %s@%s %s: copy it again", path.Base(c.Path), c.Module, mod.Version, c.Path)
			}
		})
	}
	if crds, err := BuiltinCRDs(); err != nil || len(crds) != len(BuiltinCRDSources) {
		t.Fatalf("BuiltinCRDs: %d CRDs, %v", len(crds), err)
	}
}
