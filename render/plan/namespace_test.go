package plan

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

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
