package predict

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testobjects"
	"github.com/roleout/roleout/render/schema"
)

// moduleCRDs reads the CRD files of the lws and aibrix modules, as their
// projects install them.
func moduleCRDs(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, c := range schema.BuiltinCRDSources {
		dir := testobjects.GoModule(t, ".", c.Module).Dir
		out = append(out, testobjects.Read(t, filepath.Join(dir, filepath.FromSlash(c.Path)))...)
	}
	return out
}

// customWorkloads are the LeaderWorkerSets of the lws controller tests
// (defaults of the CRD matter for several) and the StormServices of
// testdata.
func customWorkloads(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	return testobjects.Read(t, "testdata/leaderworkersets.yaml", "testdata/stormservices.yaml")
}

// TestBuiltinCRDsPredictAsTheModulesCRDs: with no CRD in the render or
// the cluster, every LeaderWorkerSet and StormService is predicted as
// with the projects' CRDs (which the tests against the real controllers
// and aibrix's own code use), from the built-in schema; without any
// schema the prediction is unverified, and wrong for some.
func TestBuiltinCRDsPredictAsTheModulesCRDs(t *testing.T) {
	crds := moduleCRDs(t)
	without := 0
	for _, o := range customWorkloads(t) {
		want, err := PredictOutcome(o, Options{Sources: schema.Sources{CRDs: crds}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := PredictOutcome(o, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want.Schema != schema.SchemaCluster || want.Unverified != "" {
			t.Errorf("%s with the cluster's CRD: schema %q, unverified %q", o.GetName(), want.Schema, want.Unverified)
		}
		if got.Schema != schema.SchemaBuiltin || got.Unverified != "" || !got.Prediction.Equal(want.Prediction) {
			t.Errorf("%s with no CRD at hand: %+v, want %+v from the built-in schema", o.GetName(), got, want.Prediction)
		}
		none, err := PredictOutcome(o, Options{Sources: schema.Sources{NoBuiltinCRDs: true}})
		if err != nil {
			t.Fatal(err)
		}
		gvk := o.GroupVersionKind()
		wantWhy := "no CRD for " + gvk.Kind + "." + gvk.Group + " " + gvk.Version + " in the render, the cluster or built in"
		if none.Schema != "" || !strings.HasPrefix(none.Unverified, wantWhy) {
			t.Errorf("%s with no schema: schema %q, unverified %q; want no schema and %q", o.GetName(), none.Schema, none.Unverified, wantWhy)
		}
		if !none.Prediction.Equal(want.Prediction) {
			without++
		}
	}
	if without == 0 {
		t.Error("without a schema every prediction is still right: the test objects do not exercise the CRDs' defaults")
	}
}

// TestRenderCRDWins: a CRD in the render that differs from the cluster's
// and the built-in one (here the LeaderWorkerSet group size defaults to 3,
// not 1) is the one the API server will serve, and the prediction follows
// it.
func TestRenderCRDWins(t *testing.T) {
	builtin, err := schema.BuiltinCRDs()
	if err != nil {
		t.Fatal(err)
	}
	lws := schema.FindCRD(testobjects.Parse(t, "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\n")[0], builtin)
	changed := lws.DeepCopy()
	versions, _, _ := unstructured.NestedSlice(changed.Object, "spec", "versions")
	size := []string{"schema", "openAPIV3Schema", "properties", "spec", "properties", "leaderWorkerTemplate", "properties", "size", "default"}
	if v, _, _ := unstructured.NestedFieldNoCopy(versions[0].(map[string]any), size...); fmt.Sprint(v) != "1" {
		t.Fatalf("the built-in CRD defaults size to %v, want 1", v)
	}
	if err := unstructured.SetNestedField(versions[0].(map[string]any), int64(3), size...); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedSlice(changed.Object, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	o := customWorkloads(t)[0] // size left to the schema default
	sized := o.DeepCopy()
	if err := unstructured.SetNestedField(sized.Object, int64(3), "spec", "leaderWorkerTemplate", "size"); err != nil {
		t.Fatal(err)
	}
	outcome := func(o *unstructured.Unstructured, opts Options) Outcome {
		t.Helper()
		out, err := PredictOutcome(o, opts)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	widget := testobjects.Parse(t, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`)
	three := outcome(sized, Options{})
	one := outcome(o, Options{})
	if three.Prediction.Equal(one.Prediction) {
		t.Fatal("size 3 and size 1 predict alike")
	}
	for name, c := range map[string]struct {
		opts   Options
		want   object.Identity
		schema schema.Schema
	}{
		"render over built in":         {Options{Sources: schema.Sources{RenderCRDs: []*unstructured.Unstructured{changed}}}, three.Prediction, schema.SchemaRender},
		"render over cluster":          {Options{Sources: schema.Sources{RenderCRDs: []*unstructured.Unstructured{changed}, CRDs: []*unstructured.Unstructured{lws}}}, three.Prediction, schema.SchemaRender},
		"cluster over built in":        {Options{Sources: schema.Sources{CRDs: []*unstructured.Unstructured{changed}}}, three.Prediction, schema.SchemaCluster},
		"built in":                     {Options{}, one.Prediction, schema.SchemaBuiltin},
		"cluster as built in, render":  {Options{Sources: schema.Sources{RenderCRDs: []*unstructured.Unstructured{lws}, CRDs: []*unstructured.Unstructured{changed}}}, one.Prediction, schema.SchemaRender},
		"an unrelated CRD in a render": {Options{Sources: schema.Sources{RenderCRDs: widget}}, one.Prediction, schema.SchemaBuiltin},
	} {
		t.Run(name, func(t *testing.T) {
			got := outcome(o, c.opts)
			if got.Schema != c.schema || got.Unverified != "" || !got.Prediction.Equal(c.want) {
				t.Errorf("%+v, want %+v from schema %s", got, c.want, c.schema)
			}
		})
	}
}

// TestUnverified: a version no CRD at hand serves has no schema, and a
// StormService whose template aibrix's webhook rewrites no prediction;
// both say why.
func TestUnverified(t *testing.T) {
	v2 := testobjects.Parse(t, `apiVersion: leaderworkerset.x-k8s.io/v2
kind: LeaderWorkerSet
metadata: {name: next, namespace: llm}
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec: {containers: [{name: app, image: registry.example/model:1.0}]}
`)[0]
	got, err := PredictOutcome(v2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema != "" || got.Prediction.TemplateRevisionHash == "" ||
		got.Unverified != "no CRD for LeaderWorkerSet.leaderworkerset.x-k8s.io v2 in the render, the cluster or built in: predicted without its schema's defaults" {
		t.Errorf("a version the built-in CRD does not serve: %+v", got)
	}
	storm := testobjects.Read(t, "testdata/stormservices.yaml")[0]
	storm.SetAnnotations(map[string]string{SidecarInjectionAnnotation: "true"})
	got, err = PredictOutcome(storm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Outcome{Unverified: "the " + SidecarInjectionAnnotation +
		" annotation lets aibrix's mutating webhook add its runtime sidecar, which roleout does not model"}, got); diff != "" {
		t.Errorf("a StormService with sidecar injection (-want +got):\n%s", diff)
	}
	if !IsWorkloadKind(storm) || IsWorkload(storm) {
		t.Errorf("a StormService with sidecar injection: IsWorkloadKind %v, IsWorkload %v; want listed, not predicted", IsWorkloadKind(storm), IsWorkload(storm))
	}
}

// TestBuiltinCRDsArePredicted: every CRD built in is the CRD of a custom
// kind roleout predicts.
func TestBuiltinCRDsArePredicted(t *testing.T) {
	crds, err := schema.BuiltinCRDs()
	if err != nil || len(crds) != len(schema.BuiltinCRDSources) {
		t.Fatalf("BuiltinCRDs: %d CRDs, %v", len(crds), err)
	}
	for _, crd := range crds {
		kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		if p, ok := predictors[kind+"."+group]; crd.GetKind() != "CustomResourceDefinition" || !ok || !p.custom {
			t.Errorf("built-in %s %s.%s is not the CRD of a custom kind roleout predicts", crd.GetKind(), kind, group)
		}
	}
}
