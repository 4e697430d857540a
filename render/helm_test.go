package render

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/plan"
)

// updateHelm rewrites testdata/helm/golden from a real `kustomize build
// --enable-helm` (kustomize's library running the helm program named by
// ROLEOUT_HELM_BINARY); the goldens are what that helm prints, never
// what roleout does.
var updateHelm = flag.Bool("update-helm", false, "rewrite testdata/helm/golden with the helm program in $ROLEOUT_HELM_BINARY")

func helmOptions() Options {
	o := DefaultOptions()
	o.EnableHelm = true
	return o
}

// asYAML is objs as one YAML stream, the goldens' form.
func asYAML(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	var b strings.Builder
	for _, o := range objs {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.String()
}

// TestHelmChartsInRepository: helmCharts of charts in the repository
// render inside the sandbox with Helm's library, exactly as `kustomize
// build --enable-helm` with helm v3.22.0 renders them (the goldens): values
// inline over the chart's values.yaml, additional values files, a values
// file replacing the chart's with valuesMerge merge, release name and
// namespace (and helm's defaults without them), CRDs, API versions, the
// Kubernetes version, test hooks kept and skipped.
func TestHelmChartsInRepository(t *testing.T) {
	if !*updateHelm { // -update-helm rewrites the golden files other tests read
		t.Parallel()
	}
	root := filepath.Join("testdata", "helm")
	for _, overlay := range []string{"shop", "plain", "prod"} {
		t.Run(overlay, func(t *testing.T) {
			golden := filepath.Join(root, "golden", overlay+".yaml")
			if *updateHelm {
				writeHelmGolden(t, root, "apps/"+overlay, golden)
			}
			res, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "apps/"+overlay, helmOptions())
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (rewrite it with -update-helm and ROLEOUT_HELM_BINARY)", err)
			}
			if diff := cmp.Diff(string(want), asYAML(t, res.Objects)); diff != "" {
				t.Errorf("render differs from kustomize build --enable-helm (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("origins", func(t *testing.T) {
		opts := helmOptions()
		opts.Origins = true
		res, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "apps/shop", opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range res.Objects {
			if got := o.GetAnnotations()[object.SourcePathAnnotation]; got != "apps/shop/kustomization.yaml" {
				t.Errorf("%s comes from %q, want the kustomization that generates it", plan.Describe(o), got)
			}
		}
	})
}

// writeHelmGolden renders overlay of root with kustomize's library and
// the helm program in $ROLEOUT_HELM_BINARY, in this process, and writes
// the objects to golden.
func writeHelmGolden(t *testing.T, root, overlay, golden string) {
	t.Helper()
	helm := os.Getenv("ROLEOUT_HELM_BINARY")
	if helm == "" {
		t.Fatal("-update-helm needs ROLEOUT_HELM_BINARY: the path of a helm v3 program")
	}
	defer openapi.ResetOpenAPI()
	kopts := krusty.MakeDefaultOptions()
	kopts.LoadRestrictions = types.LoadRestrictionsNone
	kopts.PluginConfig = types.DisabledPluginConfig()
	kopts.PluginConfig.HelmConfig = types.HelmConfig{Enabled: true, Command: helm}
	resMap, err := krusty.MakeKustomizer(kopts).Run(filesys.MakeFsOnDisk(), filepath.Join(root, overlay))
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, r := range resMap.Resources() {
		data, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, u)
	}
	if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(golden, []byte(asYAML(t, objs)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHelmVersions: the versions helm mode reports are those of the
// modules go.mod requires.
func TestHelmVersions(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod := string(data)
	if !strings.Contains(mod, "\thelm.sh/helm/v3 "+helmLibraryVersion+"\n") {
		t.Errorf("go.mod does not require helm.sh/helm/v3 %s: update helmLibraryVersion", helmLibraryVersion)
	}
	if !strings.Contains(mod, "\tk8s.io/client-go v0."+strconv.Itoa(clientGoMinor)+".") {
		t.Errorf("go.mod does not require k8s.io/client-go v0.%d: update clientGoMinor", clientGoMinor)
	}
}
