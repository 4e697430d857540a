package apply

import (
	"context"
	"errors"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/predict"
	"github.com/roleout/roleout/render/schema"
)

// workload wraps a pod spec into a Deployment, StatefulSet or DaemonSet
// named <kind>-<variant> in namespace predict.
func workload(kind, variant string, podSpec map[string]any, annotate bool) *unstructured.Unstructured {
	name := strings.ToLower(kind) + "-" + variant
	meta := map[string]any{"labels": map[string]any{"app": name, "tier": "x"}}
	if annotate {
		meta["annotations"] = map[string]any{}
	}
	spec := map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
		"template": map[string]any{"metadata": meta, "spec": podSpec},
	}
	switch kind {
	case "Deployment":
		spec["replicas"] = int64(1)
	case "StatefulSet":
		spec["replicas"], spec["serviceName"] = int64(1), name
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": "predict"},
		"spec":     spec,
	}}
}

func loadPodSpecs(t *testing.T) (map[string]map[string]any, []string) {
	t.Helper()
	data, err := os.ReadFile("testdata/podspecs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]map[string]any{}
	if err := yaml.Unmarshal(data, &specs); err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	return specs, names
}

// observe waits until the controller has processed o and returns what it
// made.
func observe(t *testing.T, a *Applier, o *unstructured.Unstructured) object.Identity {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		obs, err := a.Observe(context.Background(), o)
		if err == nil {
			return obs
		}
		if !errors.Is(err, ErrNotObserved) || time.Now().After(deadline) {
			t.Fatalf("observe %s: %v", object.RefOf(o), err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func asPrediction(o object.Identity) object.Identity {
	return object.Identity{
		PodTemplateHash: o.PodTemplateHash, ReplicaSetName: o.ReplicaSetName,
		ControllerRevisionName: o.ControllerRevisionName, ControllerRevisionHash: o.ControllerRevisionHash,
	}
}

// mustPredict predicts o with no CRD at all (none built in either), so a
// custom workload shows what its CRD's defaults change.
func mustPredict(t *testing.T, o *unstructured.Unstructured) object.Identity {
	t.Helper()
	p, err := predict.Predict(o, predict.Options{Sources: schema.Sources{NoBuiltinCRDs: true}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func applyOrFail(t *testing.T, a *Applier, objs ...*unstructured.Unstructured) {
	t.Helper()
	if _, err := a.Apply(context.Background(), objs, ApplyOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
}

// TestPredictionMatchesControllers applies 33 varied workloads to the
// test cluster and checks that every offline prediction equals what the
// real kube-controller-manager computed.
func TestPredictionMatchesControllers(t *testing.T) {
	a := newApplier(t)
	applyOrFail(t, a, obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: predict}\n"))
	specs, names := loadPodSpecs(t)
	var objs []*unstructured.Unstructured
	predicted := map[string]object.Identity{}
	for i, variant := range names {
		for _, kind := range []string{"Deployment", "StatefulSet", "DaemonSet"} {
			o := workload(kind, variant, specs[variant], i%2 == 0)
			objs = append(objs, o)
			predicted[o.GetName()] = mustPredict(t, o)
		}
	}
	if len(objs) < 30 {
		t.Fatalf("only %d workloads", len(objs))
	}
	applyOrFail(t, a, objs...)
	matched := 0
	for _, o := range objs {
		got := asPrediction(observe(t, a, o))
		if want := predicted[o.GetName()]; !got.Equal(want) {
			t.Errorf("%s: predicted %+v, controller made %+v", object.RefOf(o), want, got)
		} else {
			matched++
		}
	}
	t.Logf("%d of %d predictions equal the controllers'", matched, len(objs))
}

// TestPredictionUpdateAndRollback changes each kind's template and goes
// back: the predictions follow, and going back reuses the old ReplicaSet
// or revision.
func TestPredictionUpdateAndRollback(t *testing.T) {
	a := newApplier(t)
	applyOrFail(t, a, obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: predict}\n"))
	specs, _ := loadPodSpecs(t)
	for _, kind := range []string{"Deployment", "StatefulSet", "DaemonSet"} {
		t.Run(kind, func(t *testing.T) {
			v1 := workload(kind, "rollback", specs["probes"], false)
			v2 := v1.DeepCopy()
			containers, _, _ := unstructured.NestedSlice(v2.Object, "spec", "template", "spec", "containers")
			containers[0].(map[string]any)["image"] = "registry.example/app:2.0"
			if err := unstructured.SetNestedSlice(v2.Object, containers, "spec", "template", "spec", "containers"); err != nil {
				t.Fatal(err)
			}
			var first object.Identity
			for step, o := range []*unstructured.Unstructured{v1, v2, v1} {
				want := mustPredict(t, o)
				applyOrFail(t, a, o)
				got := asPrediction(observe(t, a, o))
				if !got.Equal(want) {
					t.Fatalf("step %d: predicted %+v, controller made %+v", step, want, got)
				}
				if step == 0 {
					first = want
				}
				if step == 2 && !want.Equal(first) {
					t.Errorf("back on the first template the prediction %+v differs from the first %+v", want, first)
				}
			}
			if kind == "Deployment" {
				list, err := a.client.Resource(replicaSets).Namespace("predict").List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + v1.GetName()})
				if err != nil {
					t.Fatal(err)
				}
				if len(list.Items) != 2 {
					t.Errorf("ReplicaSets after the rollback = %d, want 2 (the old one reused)", len(list.Items))
				}
			}
		})
	}
}
