package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/object"
)

func clientset(t *testing.T) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestApplyConflictAndForce(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	cm := func(level string) *unstructured.Unstructured {
		return obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: contested, namespace: default}\ndata: {level: "+level+"}\n")
	}
	// The other team applies with its own tool (no roleout stamp), as
	// kubectl apply --server-side would.
	dyn, err := dynamic.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	configMaps := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")
	if _, err := configMaps.Apply(ctx, "contested", cm("debug"), metav1.ApplyOptions{FieldManager: "other-team"}); err != nil {
		t.Fatal(err)
	}
	_, err = a.Apply(ctx, []*unstructured.Unstructured{cm("info")}, ApplyOptions{})
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("error %v, want a ConflictError", err)
	}
	if diff := cmp.Diff(map[string][]string{"other-team": {".data.level"}}, conflict.Managers); diff != "" {
		t.Errorf("conflict managers (-want +got):\n%s", diff)
	}
	for _, want := range []string{"ConfigMap/default/contested", `field manager "other-team" owns .data.level`, "set force: true"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	res, err := a.Apply(ctx, []*unstructured.Unstructured{cm("info")}, ApplyOptions{Force: true})
	if err != nil || res[0].Action != Configured {
		t.Fatalf("forced apply: %v %+v", err, res)
	}
	live, err := clientset(t).CoreV1().ConfigMaps("default").Get(ctx, "contested", metav1.GetOptions{})
	if err != nil || live.Data["level"] != "info" {
		t.Errorf("after force: %v %v", live.Data, err)
	}
}

func TestApplyImmutableAndRecreate(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	cm := func(value, recreate string) *unstructured.Unstructured {
		o := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: frozen, namespace: default}\nimmutable: true\ndata: {v: '"+value+"'}\n")
		if recreate != "" {
			o.SetAnnotations(map[string]string{object.RecreateAnnotation: recreate})
		}
		return o
	}
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{cm("1", "")}, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	first, err := clientset(t).CoreV1().ConfigMaps("default").Get(ctx, "frozen", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Apply(ctx, []*unstructured.Unstructured{cm("2", "")}, ApplyOptions{})
	var immutable *ImmutableError
	if !errors.As(err, &immutable) || !strings.Contains(err.Error(), object.RecreateAnnotation) {
		t.Fatalf("error %v, want an ImmutableError naming the recreate annotation", err)
	}
	res, err := a.Apply(ctx, []*unstructured.Unstructured{cm("2", "true")}, ApplyOptions{})
	if err != nil || res[0].Action != Recreated {
		t.Fatalf("recreate: %v %+v", err, res)
	}
	second, err := clientset(t).CoreV1().ConfigMaps("default").Get(ctx, "frozen", metav1.GetOptions{})
	if err != nil || second.Data["v"] != "2" || second.UID == first.UID {
		t.Errorf("after recreate: data %v, uid %s (was %s); want new data under a new UID", second.Data, second.UID, first.UID)
	}
}

func TestPrune(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	cm := func(name, extra string) *unstructured.Unstructured {
		return obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "+name+", namespace: default"+extra+"}\n")
	}
	ours := ApplyOptions{Labels: map[string]string{"roleout.dev/app": "shop"}}
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{
		cm("gone-1", ""), cm("protected", ", annotations: {roleout.dev/prune: 'false'}"), cm("held", ", finalizers: [example.com/hold]"),
	}, ours); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{cm("foreign", "")}, ApplyOptions{Labels: map[string]string{"roleout.dev/app": "other"}}); err != nil {
		t.Fatal(err)
	}
	ref := func(name string) object.Ref {
		return object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: name}
	}
	opts := PruneOptions{OwnerLabel: "roleout.dev/app", OwnerValue: "shop", Timeout: 2 * time.Second}
	res, err := a.Prune(ctx, []object.Ref{ref("gone-1"), ref("protected"), ref("foreign"), ref("never-existed")}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, fmt.Sprintf("%s:%s", r.Object.Name, r.Action))
	}
	if diff := cmp.Diff([]string{"gone-1:deleted", "protected:skipped", "foreign:skipped", "never-existed:skipped"}, got); diff != "" {
		t.Errorf("prune results (-want +got):\n%s", diff)
	}
	cs := clientset(t)
	for name, want := range map[string]bool{"gone-1": false, "protected": true, "foreign": true} {
		_, err := cs.CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{})
		if exists := err == nil; exists != want {
			t.Errorf("%s exists = %v, want %v", name, exists, want)
		}
	}
	_, err = a.Prune(ctx, []object.Ref{ref("held")}, opts)
	if err == nil || !strings.Contains(err.Error(), "waiting on finalizers [example.com/hold]") {
		t.Errorf("prune of an object with a finalizer: %v", err)
	}
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	if _, err := cs.CoreV1().ConfigMaps("default").Patch(ctx, "held", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestApplyCustomResourceAfterItsCRD applies a CRD and then, with the
// same long-lived applier, a custom resource of the new kind.
func TestApplyCustomResourceAfterItsCRD(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	// Warm the mapper's discovery cache before the CRD exists.
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: warm, namespace: default}\n")}, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	crd := obj(t, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`)
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{crd}, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := a.WaitHealthy(ctx, []*unstructured.Unstructured{crd}, WaitOptions{Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	cr := obj(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: default}\nspec: {size: 3}\n")
	res, err := a.Apply(ctx, []*unstructured.Unstructured{cr}, ApplyOptions{})
	if err != nil || res[0].Action != Created {
		t.Fatalf("custom resource after its CRD: %v %+v", err, res)
	}
}
