package revision

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// aibrixTools is the module that builds the aibrix controller (and the
// oracle) with the k8s.io/api v0.31.8 aibrix requires.
const aibrixTools = "../../hack/tools/aibrix"

// readYAMLObjects reads the objects of a multi-document YAML file.
func readYAMLObjects(t testing.TB, file string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			break
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no objects in %s", file)
	}
	return out
}

// aibrixCRDs reads the orchestration CRDs of the aibrix module.
func aibrixCRDs(t testing.TB) []*unstructured.Unstructured {
	t.Helper()
	dir := goList(t, aibrixTools, "list", "-m", "-f", "{{.Dir}}", "github.com/vllm-project/aibrix")
	files, err := filepath.Glob(filepath.Join(dir, "config/crd/orchestration/orchestration.aibrix.ai_*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no aibrix CRDs in %s: %v", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		out = append(out, readYAMLObjects(t, f)...)
	}
	return out
}

func goList(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
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
			if err := asStored(u, findCRD(u, crds)); err != nil {
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
	objs := readYAMLObjects(t, "testdata/stormservices.yaml")
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
				opts := PredictOptions{CRDs: c.crds, NoBuiltinCRDs: c.crds == nil}
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
				w := Prediction{ControllerRevisionName: want[i].ControllerRevisionName, RoleTemplateHashes: want[i].RoleTemplateHashes}
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
	objs := readYAMLObjects(b, "testdata/stormservices.yaml")
	crds := aibrixCRDs(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := Predict(objs[i%len(objs)], PredictOptions{CRDs: crds}); err != nil {
			b.Fatal(err)
		}
	}
}
