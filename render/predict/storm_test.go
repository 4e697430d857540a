package predict

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testobjects"
	"github.com/roleout/roleout/render/schema"
)

// aibrixTools is the module that builds the aibrix controller (and the
// oracle) with the k8s.io/api v0.31.8 aibrix requires.
const aibrixTools = "../../hack/tools/aibrix"

// aibrixCRDs reads the orchestration CRDs of the aibrix module.
func aibrixCRDs(t testing.TB) []*unstructured.Unstructured {
	t.Helper()
	dir := testobjects.GoModule(t, aibrixTools, "github.com/vllm-project/aibrix").Dir
	files, err := filepath.Glob(filepath.Join(dir, "config/crd/orchestration/orchestration.aibrix.ai_*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no aibrix CRDs in %s: %v", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		out = append(out, testobjects.Read(t, f)...)
	}
	return out
}

// oracleResult is what hack/tools/aibrix/oracle computes with aibrix's
// own code for one stored StormService.
type oracleResult struct {
	ControllerRevisionName string            `json:"controllerRevisionName"`
	RoleTemplateHashes     map[string]string `json:"roleTemplateHashes,omitempty"`
	Error                  string            `json:"error,omitempty"`
}

// runOracle computes, with aibrix v0.6.0 and k8s.io/api v0.31.8, the
// identities of objs as the API server stores them.
func runOracle(t *testing.T, objs []*unstructured.Unstructured) []oracleResult {
	t.Helper()
	in, err := json.Marshal(objs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "./oracle")
	cmd.Dir = aibrixTools
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run the aibrix oracle: %v", err)
	}
	var res []oracleResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != len(objs) {
		t.Fatalf("the oracle answered %d of %d objects", len(res), len(objs))
	}
	return res
}

// stored returns objs as the API server stores them with their CRD, and
// with a collision count in the status when cc is not nil.
func stored(t *testing.T, objs []*unstructured.Unstructured, crds []*unstructured.Unstructured, cc *int64) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, o := range objs {
		u := o.DeepCopy()
		if crds != nil {
			if err := schema.AsStored(u, schema.FindCRD(u, crds)); err != nil {
				t.Fatal(err)
			}
		}
		if cc != nil {
			_ = unstructured.SetNestedField(u.Object, *cc, "status", "collisionCount")
		}
		out = append(out, u)
	}
	return out
}

// TestStormServicePredictionMatchesAibrixCode compares every prediction
// for the StormServices of testdata with what aibrix v0.6.0's own code,
// linked with k8s.io/api v0.31.8, computes: with the CRD (as the cluster
// stores them), without it, and with a collision count.
func TestStormServicePredictionMatchesAibrixCode(t *testing.T) {
	objs := testobjects.Read(t, "testdata/stormservices.yaml")
	crds := aibrixCRDs(t)
	three := int64(3)
	cases := []struct {
		name string
		crds []*unstructured.Unstructured
		cc   *int64
	}{
		{name: "with the CRD", crds: crds},
		{name: "without the CRD"},
		{name: "collision count 3", crds: crds, cc: &three},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := runOracle(t, stored(t, objs, c.crds, c.cc))
			for i, o := range objs {
				// Without the CRD means none built in either.
				opts := Options{Sources: schema.Sources{CRDs: c.crds, NoBuiltinCRDs: c.crds == nil}}
				if c.cc != nil {
					n := int32(*c.cc)
					opts.CollisionCount = &n
				}
				got, err := Predict(o, opts)
				if err != nil {
					t.Fatal(err)
				}
				if want[i].Error != "" {
					t.Fatalf("%s: oracle: %s", o.GetName(), want[i].Error)
				}
				w := object.Identity{ControllerRevisionName: want[i].ControllerRevisionName, RoleTemplateHashes: want[i].RoleTemplateHashes}
				if diff := cmp.Diff(w, got); diff != "" {
					t.Errorf("%s (-aibrix +roleout):\n%s", o.GetName(), diff)
				}
			}
		})
	}
}

// BenchmarkPredictStormService predicts the StormServices of testdata
// with their CRD, as a plan does.
func BenchmarkPredictStormService(b *testing.B) {
	objs := testobjects.Read(b, "testdata/stormservices.yaml")
	crds := aibrixCRDs(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := Predict(objs[i%len(objs)], Options{Sources: schema.Sources{CRDs: crds}}); err != nil {
			b.Fatal(err)
		}
	}
}
