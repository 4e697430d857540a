package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/shapes"
	"github.com/roleout/roleout/internal/testcluster"
)

// The renderer roleout ships is kustomize with a patch of its own
// (third_party/kustomize-api/ROLEOUT.md). These tests hold it to
// `kubectl kustomize`, built from the unpatched release into bin/ by make
// cluster-bins, on every overlay of examples/, on the benchmark shapes
// of internal/shapes and on the layouts of testdata/equivalence: the
// patched library's YAML must be kubectl's byte for byte, and the objects
// (or the error) of a render through the sandbox must be kubectl's.

// equivalenceCase is one overlay to render both ways.
type equivalenceCase struct {
	name, root, overlay string
	// sandboxOnly is a layout of testdata/equivalence/customschema*,
	// where a kustomization sets its own OpenAPI schema: kustomize keeps
	// that in process-global state (and so does the release: a later
	// build in the same process goes on using it), so it renders only
	// through the sandbox, never in the test's process, and is compared
	// with kubectl's objects as a set.
	sandboxOnly bool
}

// kubectlBinary returns bin/kubectl of the module root.
func kubectlBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs bin/kubectl (make cluster-bins)")
	}
	dir, err := testcluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	kubectl := filepath.Join(dir, "bin", "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Fatalf("%v: run make cluster-bins (make test does) to build kubectl from the unpatched kustomize", err)
	}
	return kubectl
}

// equivalenceCases lists the overlays of examples/, testdata/equivalence
// and the shapes (written under a temporary directory).
func equivalenceCases(t *testing.T) []equivalenceCase {
	t.Helper()
	var cases []equivalenceCase
	for _, root := range []string{"../examples", "testdata/equivalence"} {
		abs, err := filepath.Abs(root)
		if err != nil {
			t.Fatal(err)
		}
		err = filepath.WalkDir(abs, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "kustomization.yaml" {
				return err
			}
			rel, _ := filepath.Rel(abs, filepath.Dir(p))
			cases = append(cases, equivalenceCase{name: filepath.Base(root) + "/" + rel, root: abs, overlay: filepath.ToSlash(rel),
				sandboxOnly: strings.HasPrefix(rel, "customschema")})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	for _, s := range []struct {
		name    string
		files   shapes.Files
		overlay string
	}{
		{"shape-flat-1000", shapes.Flat("flat", "bench", 1000), "flat"},
		{"shape-rich-400", shapes.Rich("rich", 400), "rich/overlay"},
	} {
		if err := s.files.Write(tmp); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, equivalenceCase{name: s.name, root: tmp, overlay: s.overlay})
	}
	if len(cases) < 15 {
		t.Fatalf("only %d overlays found", len(cases))
	}
	return cases
}

// kubectlKustomize returns kubectl kustomize's output for dir, or its
// error message.
func kubectlKustomize(t *testing.T, kubectl, dir string) ([]byte, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kubectl, "kustomize", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return nil, strings.TrimSpace(strings.TrimPrefix(stderr.String(), "error: "))
	}
	return stdout.Bytes(), ""
}

// libraryYAML runs the linked (patched) kustomize on the disk with the
// resource order reorder (kubectl kustomize's is legacy, roleout's
// renders none) and returns its YAML or its error.
func libraryYAML(dir string, reorder krusty.ReorderOption) ([]byte, error) {
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = reorder
	opts.PluginConfig = types.DisabledPluginConfig()
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, err
	}
	return m.AsYaml()
}

// TestEquivalentToKubectlKustomize is the byte-for-byte comparison.
func TestEquivalentToKubectlKustomize(t *testing.T) {
	kubectl := kubectlBinary(t)
	for _, c := range equivalenceCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(c.root, filepath.FromSlash(c.overlay))
			want, wantErr := kubectlKustomize(t, kubectl, dir)
			if c.sandboxOnly {
				res, err := (&Renderer{}).Build(context.Background(), Source{Root: c.root}, c.overlay, DefaultOptions())
				if err != nil || wantErr != "" {
					t.Fatalf("the sandbox: %v, kubectl: %s", err, wantErr)
				}
				if !sameObjects(res.Objects, decodeYAMLStream(t, want)) {
					t.Fatal("the sandbox's objects are not kubectl's")
				}
				return
			}
			got, err := libraryYAML(dir, krusty.ReorderOptionLegacy)
			switch {
			case wantErr != "" && err == nil:
				t.Fatalf("kubectl kustomize failed (%s), the library did not", wantErr)
			case wantErr != "" && err.Error() != wantErr:
				t.Fatalf("errors differ:\nkubectl: %s\nlibrary: %v", wantErr, err)
			case wantErr == "" && err != nil:
				t.Fatalf("the library failed: %v", err)
			case wantErr == "" && !bytes.Equal(got, want):
				t.Fatalf("YAML differs from kubectl kustomize's (%d bytes against %d):\n%s", len(got), len(want), firstDifference(got, want))
			}

			res, buildErr := (&Renderer{}).Build(context.Background(), Source{Root: c.root}, c.overlay, DefaultOptions())
			if wantErr != "" {
				rel := strings.ReplaceAll(wantErr, c.root+string(filepath.Separator), "")
				if buildErr == nil || !strings.Contains(buildErr.Error(), rel) {
					t.Fatalf("the sandbox's error %v does not carry kubectl's %q", buildErr, rel)
				}
				return
			}
			if buildErr != nil {
				t.Fatal(buildErr)
			}
			// kubectl sorts its output (legacy order); roleout keeps the
			// kustomization's: the same objects, in the library's order
			// without sorting.
			unsorted, err := libraryYAML(dir, krusty.ReorderOptionNone)
			if err != nil {
				t.Fatal(err)
			}
			objs := decodeYAMLStream(t, unsorted)
			if !sameObjects(objs, decodeYAMLStream(t, want)) {
				t.Fatal("the library's objects unsorted are not kubectl's sorted")
			}
			if len(res.Objects) != len(objs) {
				t.Fatalf("%d objects through the sandbox, kubectl %d", len(res.Objects), len(objs))
			}
			for i, o := range objs {
				if !reflect.DeepEqual(res.Objects[i].Object, o.Object) {
					a, _ := json.Marshal(res.Objects[i].Object)
					b, _ := json.Marshal(o.Object)
					t.Fatalf("object %d differs:\nsandbox: %s\nkubectl: %s", i, a, b)
				}
			}
		})
	}
}

// decodeYAMLStream decodes YAML documents (kubectl's or the library's) the way the API
// machinery would (YAML to JSON, then unstructured).
func decodeYAMLStream(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split("\n"+string(data), "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(js); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// sameObjects says a and b hold the same objects, in any order.
func sameObjects(a, b []*unstructured.Unstructured) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(o *unstructured.Unstructured) string {
		data, _ := json.Marshal(o.Object)
		return string(data)
	}
	count := map[string]int{}
	for _, o := range a {
		count[key(o)]++
	}
	for _, o := range b {
		if count[key(o)]--; count[key(o)] < 0 {
			return false
		}
	}
	return true
}

// firstDifference shows the lines around where a and b first differ.
func firstDifference(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  library: " + al[i] + "\n  kubectl: " + bl[i]
		}
	}
	return "one is a prefix of the other"
}
