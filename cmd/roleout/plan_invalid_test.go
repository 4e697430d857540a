package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/testcluster"
)

// TestPlanRefusesInvalidObjects: `roleout render` and `roleout plan` of a
// directory with an object the API server would refuse exit 2 with the
// object, the field and the reason, and print no plan.
func TestPlanRefusesInvalidObjects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, data := range map[string]string{
		"kustomization.yaml": "namespace: shop\nresources: [web.yaml, decode.yaml]\n",
		"web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: "2"
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: "web:1"}]}}
`,
		"decode.yaml": `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: decode}
spec: {leaderWorkerTemplate: null}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range []string{"render", "plan"} {
		t.Run(cmd, func(t *testing.T) {
			code, out, errOut := cli(cmd, dir)
			for _, want := range []string{
				"2 of the rendered objects would be refused by the API server",
				"Deployment/shop/web: spec.replicas: expected numeric (int or float), got string",
				"LeaderWorkerSet/shop/decode: spec.leaderWorkerTemplate: Required value (CRD leaderworkersets.leaderworkerset.x-k8s.io, built into roleout)",
			} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			if code != exitError || out != "" {
				t.Errorf("exit %d, stdout %q; want %d and nothing", code, out, exitError)
			}
		})
	}
}

// nullSpecCRD is a namespaced kind whose spec is an object, not nullable.
const nullSpecCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: nullchecks.roleout.test}
spec:
  group: roleout.test
  scope: Namespaced
  names: {plural: nullchecks, singular: nullcheck, kind: NullCheck}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
`

// TestPlanRefusesANullSpecAsTheServerDoes: kube-apiserver refuses, under
// server-side apply, a custom resource whose spec is null (a create would
// drop the null); the plan of a render holding the CRD and such an object
// refuses it with the server's words, before anything is applied.
func TestPlanRefusesANullSpecAsTheServerDoes(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	ctx := context.Background()
	dyn, err := dynamic.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(nullSpecCRD), &crd.Object); err != nil {
		t.Fatal(err)
	}
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crds.Apply(ctx, crd.GetName(), crd, metav1.ApplyOptions{FieldManager: "test", Force: true}); err != nil {
		t.Fatal(err)
	}
	cr := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "roleout.test/v1", "kind": "NullCheck",
		"metadata": map[string]any{"name": "n", "namespace": "default"}, "spec": nil}}
	nullchecks := dyn.Resource(schema.GroupVersionResource{Group: "roleout.test", Version: "v1", Resource: "nullchecks"}).Namespace("default")
	var serverErr error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		_, serverErr = nullchecks.Apply(ctx, "n", cr, metav1.ApplyOptions{FieldManager: "test", DryRun: []string{metav1.DryRunAll}})
		if serverErr == nil || !apierrors.IsNotFound(serverErr) {
			break // the CRD is served
		}
	}
	const reason = `spec in body must be of type object: "null"`
	if serverErr == nil || !strings.Contains(serverErr.Error(), reason) {
		t.Fatalf("kube-apiserver answered a server-side apply of spec: null with %v, want %q", serverErr, reason)
	}

	dir := t.TempDir()
	for name, data := range map[string]string{
		"kustomization.yaml": "namespace: shop\nresources: [crd.yaml, n.yaml]\n",
		"crd.yaml":           nullSpecCRD,
		"n.yaml":             "apiVersion: roleout.test/v1\nkind: NullCheck\nmetadata: {name: n}\nspec: null\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := cli("plan", dir)
	if code != exitError || out != "" || !strings.Contains(errOut, "NullCheck/shop/n: spec: Invalid value: \"null\": "+reason) {
		t.Errorf("plan of a NullCheck with spec: null: exit %d, stdout %q, stderr:\n%s\nwant exit %d and the server's reason", code, out, errOut, exitError)
	}
}
