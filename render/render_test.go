package render

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/render/revision"
)

// writeTree writes files (slash paths → content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const baseDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  annotations: {roleout.dev/role: api, roleout.dev/upgrade-order: "2"}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: "api:1.0"}]}
`

func TestBuildOverlay(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"base/kustomization.yaml":          "resources: [deployment.yaml]\n",
		"base/deployment.yaml":             baseDeployment,
		"overlays/prod/kustomization.yaml": "resources: [../../base]\nimages: [{name: api, newTag: '2.0'}]\n",
	})
	res, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "overlays/prod", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	objs := res.Objects
	if len(objs) != 1 || objs[0].GetName() != "api" {
		t.Fatalf("objects = %v", objs)
	}
	containers, _, _ := unstructured.NestedSlice(objs[0].Object, "spec", "template", "spec", "containers")
	if img := containers[0].(map[string]any)["image"]; img != "api:2.0" {
		t.Errorf("image = %v, want the overlay's api:2.0", img)
	}
	// Rendered objects must hold JSON types only, so that they can be
	// copied and hashed.
	if _, err := revision.TemplateHash(objs, nil); err != nil {
		t.Errorf("hash rendered objects: %v", err)
	}
}

// TestDefaultNamespace: namespaced objects that name none get the app's
// namespace, cluster-scoped ones lose any namespace (kustomize's namespace
// field sets it on kinds it does not know), and a kind of unknown scope is
// shown as namespaced, as kubectl takes it. Scope comes from the cluster
// first, then Kubernetes' own kinds, then the render's CRDs, which cannot
// change a kind the cluster or Kubernetes defines.
func TestDefaultNamespace(t *testing.T) {
	t.Parallel()
	dep := obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n")
	own := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: other}\n")
	ns := obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n")
	crd := obj(t, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gadgets.example.com}\nspec: {group: example.com, scope: Cluster, names: {kind: Gadget}}\n")
	gadget := obj(t, "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: app}\n")
	unknown := obj(t, "apiVersion: other.example.com/v1\nkind: Thing\nmetadata: {name: t}\n")
	map1 := obj(t, "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: m, namespace: app}\n")
	issuer := obj(t, "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata: {name: i}\n")
	liar := obj(t, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: mutatingadmissionpolicies.admissionregistration.k8s.io}\n"+
		"spec: {group: admissionregistration.k8s.io, scope: Namespaced, names: {kind: MutatingAdmissionPolicy}}\n")
	objs := []*unstructured.Unstructured{dep, own, ns, crd, gadget, unknown, map1, issuer, liar}
	live := Scopes{{Group: "cert-manager.io", Kind: "ClusterIssuer"}: false}
	DefaultNamespace(objs, "app", KindScopes(objs, live))
	for o, want := range map[*unstructured.Unstructured]string{dep: "app", own: "other", ns: "", crd: "", gadget: "", unknown: "app", map1: "", issuer: ""} {
		if o.GetNamespace() != want {
			t.Errorf("%s namespace = %q, want %q", Describe(o), o.GetNamespace(), want)
		}
	}
	if got := Kinds(objs); len(got) != 8 {
		t.Errorf("Kinds = %v, want 8 distinct kinds", got)
	}
}
