package plan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/schema"
	"github.com/roleout/roleout/render/validate"
)

// invalidPlanObjects are a valid app of a Namespace, a Deployment, a
// LeaderWorkerSet and a StormService, with bad put in place of the
// object of the same kind.
func invalidPlanObjects(t *testing.T, bad string) []*unstructured.Unstructured {
	t.Helper()
	objs := []*unstructured.Unstructured{
		obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n"),
		deploy(t, "web", "web", "1"),
		obj(t, `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: decode, namespace: app, annotations: {roleout.dev/role: decode}}
spec: {replicas: 2, leaderWorkerTemplate: {size: 2, workerTemplate: {spec: {containers: [{name: w, image: "engine:1"}]}}}}
`),
		obj(t, `apiVersion: orchestration.aibrix.ai/v1alpha1
kind: StormService
metadata: {name: pd, namespace: app, annotations: {roleout.dev/role: serving}}
spec:
  selector: {matchLabels: {app: pd}}
  template: {spec: {roles: [{name: prefill, replicas: 1, template: {spec: {containers: [{name: e, image: "vllm:1"}]}}}]}}
`),
	}
	if bad == "" {
		return objs
	}
	b := obj(t, bad)
	for i, o := range objs {
		if o.GetKind() == b.GetKind() {
			objs[i] = b
		}
	}
	return objs
}

// TestNewPlanRefusesInvalidObjects: one object the API server would
// refuse fails the whole plan, with the object, the field and the
// reason, so nothing of the app is predicted or applied; the same app
// with the object fixed plans.
func TestNewPlanRefusesInvalidObjects(t *testing.T) {
	t.Parallel()
	if _, err := New(invalidPlanObjects(t, ""), Options{App: "llm"}, Facts{}); err != nil {
		t.Fatalf("the valid app: %v", err)
	}
	ref := func(apiVersion, kind, name string) object.Ref {
		return object.Ref{APIVersion: apiVersion, Kind: kind, Namespace: "app", Name: name}
	}
	for _, c := range []struct {
		name, bad string
		want      InvalidObject
		line      string
	}{
		{"Deployment, null where a string is required", `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: app}
spec:
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: null}]}}
`, InvalidObject{Ref: ref("apps/v1", "Deployment", "web"), Schema: schema.SchemaBuiltin,
			Errors: []validate.FieldError{{Field: "spec.template.spec.containers[0].image", Reason: "Required value"}}},
			"Deployment/app/web: spec.template.spec.containers[0].image: Required value"},
		{"LeaderWorkerSet, unknown field", `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: decode, namespace: app}
spec: {replicas: 2, leaderWorkerTemplate: {sise: 2, workerTemplate: {spec: {containers: [{name: w, image: "engine:1"}]}}}}
`, InvalidObject{Ref: ref("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "decode"), Schema: schema.SchemaBuiltin,
			CRD: "leaderworkersets.leaderworkerset.x-k8s.io",
			Errors: []validate.FieldError{{Field: "spec.leaderWorkerTemplate.sise",
				Reason: "unknown field: not declared in the CRD's schema"}}},
			"LeaderWorkerSet/app/decode: spec.leaderWorkerTemplate.sise: unknown field: not declared in the CRD's schema (CRD leaderworkersets.leaderworkerset.x-k8s.io, built into roleout)"},
		{"StormService, missing required field", `apiVersion: orchestration.aibrix.ai/v1alpha1
kind: StormService
metadata: {name: pd, namespace: app}
spec:
  template: {spec: {roles: [{name: prefill, replicas: 1, template: {spec: {containers: [{name: e, image: "vllm:1"}]}}}]}}
`, InvalidObject{Ref: ref("orchestration.aibrix.ai/v1alpha1", "StormService", "pd"), Schema: schema.SchemaBuiltin,
			CRD: "stormservices.orchestration.aibrix.ai", Errors: []validate.FieldError{{Field: "spec.selector", Reason: "Required value"}}},
			"StormService/app/pd: spec.selector: Required value (CRD stormservices.orchestration.aibrix.ai, built into roleout)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(invalidPlanObjects(t, c.bad), Options{App: "llm"}, Facts{})
			var invalid *InvalidObjectsError
			if !errors.As(err, &invalid) || p != nil {
				t.Fatalf("plan %v, error %v; want no plan and an *InvalidObjectsError", p, err)
			}
			if diff := cmp.Diff([]InvalidObject{c.want}, invalid.Objects); diff != "" {
				t.Errorf("invalid objects (-want +got):\n%s", diff)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != 2 || lines[1] != c.line || !strings.HasPrefix(lines[0], "1 of the rendered objects would be refused by the API server") {
				t.Errorf("error %q; want a header and the line %q", err, c.line)
			}
		})
	}
}

// TestInvalidObjectsErrorIsBounded: an error for many invalid objects
// prints the first reasons and counts the rest.
func TestInvalidObjectsErrorIsBounded(t *testing.T) {
	t.Parallel()
	var objs []*unstructured.Unstructured
	for i := range 15 {
		objs = append(objs, obj(t, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d, namespace: app}\ndata: {a b: x, c d: z}\n", i)))
	}
	_, err := New(objs, Options{App: "llm"}, Facts{})
	var invalid *InvalidObjectsError
	if !errors.As(err, &invalid) || len(invalid.Objects) != 15 {
		t.Fatalf("error %v; want an *InvalidObjectsError of 15 objects", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 1+maxInvalidLines+1 || lines[len(lines)-1] != "… and 10 more" || !strings.HasPrefix(lines[1], "ConfigMap/app/c0: data[a b]: Invalid value") {
		t.Errorf("%d lines, first %q, last %q; want %d reasons and \"… and 10 more\"", len(lines), lines[1], lines[len(lines)-1], maxInvalidLines)
	}
}

// TestNewPlanCRDInTheRenderWins: a LeaderWorkerSet with a field the
// built-in CRD does not declare is refused, unless the render has a CRD
// that declares it; an object of a kind with no CRD at hand is listed as
// unchecked.
func TestNewPlanCRDInTheRenderWins(t *testing.T) {
	t.Parallel()
	objs := invalidPlanObjects(t, `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: decode, namespace: app, annotations: {roleout.dev/role: decode}}
spec: {replicas: 2, leaderWorkerTemplate: {workerTemplate: {spec: {containers: [{name: w, image: "engine:1"}]}}}, tier: gold}
`)
	objs = append(objs, obj(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: app}\nspec: {anything: 1}\n"))
	_, err := New(objs, Options{App: "llm"}, Facts{})
	if err == nil || !strings.Contains(err.Error(), "LeaderWorkerSet/app/decode: spec.tier: unknown field") {
		t.Fatalf("error %v; want spec.tier refused by the built-in CRD", err)
	}
	builtin, err := schema.BuiltinCRDs()
	if err != nil {
		t.Fatal(err)
	}
	crd := builtin[0].DeepCopy()
	if crd.GetName() != "leaderworkersets.leaderworkerset.x-k8s.io" {
		t.Fatalf("built-in CRD %s", crd.GetName())
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if err := unstructured.SetNestedField(versions[0].(map[string]any), map[string]any{"type": "string"},
		"schema", "openAPIV3Schema", "properties", "spec", "properties", "tier"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	p, err := New(append(objs, crd), Options{App: "llm"}, Facts{})
	if err != nil {
		t.Fatal(err)
	}
	want := []object.Ref{{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "app", Name: "w"}}
	if diff := cmp.Diff(want, p.Unchecked); diff != "" {
		t.Errorf("unchecked (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, p.Summarize(nil).Unchecked); diff != "" {
		t.Errorf("summary's unchecked (-want +got):\n%s", diff)
	}
}

// TestFixturesAreValid: every overlay of the testdata and examples plans,
// every object in it checked (none unchecked). Helm charts are the Helm
// tests' business; testdata/equivalence holds layouts kustomize refuses
// on purpose, for TestEquivalentToKubectlKustomize.
func TestFixturesAreValid(t *testing.T) {
	t.Parallel()
	type overlay struct{ root, dir string }
	var overlays []overlay
	for _, root := range []string{"../testdata", "../../cmd/roleout/testdata", "../../examples"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "fuzz" || d.Name() == "helm" || d.Name() == "equivalence" || d.Name() == "flux-repo" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.Name() == "kustomization.yaml" && !strings.Contains(path, "/bases/") && !strings.Contains(path, "/base/") {
				rel, err := filepath.Rel(root, filepath.Dir(path))
				overlays = append(overlays, overlay{root, filepath.ToSlash(rel)})
				return err
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(overlays) < 10 {
		t.Fatalf("found only %v", overlays)
	}
	for _, o := range overlays {
		t.Run(filepath.Join(o.root, o.dir), func(t *testing.T) {
			res, err := (&render.Renderer{}).Build(context.Background(), render.Source{Root: o.root}, o.dir, render.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			DefaultNamespace(res.Objects, "default", KindScopes(res.Objects, nil))
			p, err := New(res.Objects, Options{App: "fixture"}, Facts{})
			if err != nil {
				t.Fatal(err)
			}
			// init-operator's samples are Widgets whose CRD its config/default
			// holds: an app that depends on another for its CRD.
			if len(p.Unchecked) > 0 && !strings.HasSuffix(o.dir, "init-operator/config/samples") {
				t.Errorf("unchecked: %v", p.Unchecked)
			}
		})
	}
}
