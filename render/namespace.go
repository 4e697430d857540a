package render

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// schemaMu serialises lookups in kustomize's process-global OpenAPI
// schema. Builds never touch it in this process: they run in sandbox
// children.
var schemaMu sync.Mutex

// DefaultNamespace sets namespace on every namespaced object that names
// none. Scope comes from Kubernetes' built-in OpenAPI schema, and for
// custom resources from a CustomResourceDefinition among objs; an object of
// an unknown kind is taken as namespaced, as kubectl does. It returns an
// error naming an object that sets a namespace on a cluster-scoped kind.
func DefaultNamespace(objs []*unstructured.Unstructured, namespace string) error {
	var errs []error
	eachScope(objs, func(o *unstructured.Unstructured, namespaced, found bool) {
		switch {
		case found && !namespaced && o.GetNamespace() != "":
			errs = append(errs, fmt.Errorf("%s: a %s is cluster-scoped and cannot name namespace %q", Describe(o), o.GetKind(), o.GetNamespace()))
		case (namespaced || !found) && o.GetNamespace() == "":
			o.SetNamespace(namespace)
		}
	})
	return errors.Join(errs...)
}

// eachScope calls fn for every object of objs, in order, with its scope:
// namespaced or not, and whether the scope is known at all. Scope comes
// from Kubernetes' built-in OpenAPI schema, and for custom resources from
// a CustomResourceDefinition among objs. This is the one scope lookup of
// roleout: DefaultNamespace and CheckDestinations both use it.
func eachScope(objs []*unstructured.Unstructured, fn func(o *unstructured.Unstructured, namespaced, found bool)) {
	crdScope := map[string]bool{} // group/kind → namespaced
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" && strings.HasPrefix(o.GetAPIVersion(), "apiextensions.k8s.io/") {
			group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
			scope, _, _ := unstructured.NestedString(o.Object, "spec", "scope")
			crdScope[group+"/"+kind] = scope != "Cluster"
		}
	}
	schemaMu.Lock() // the schema lookup initialises kustomize's global state
	defer schemaMu.Unlock()
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		namespaced, found := crdScope[gvk.Group+"/"+gvk.Kind]
		if !found {
			namespaced, found = openapi.IsNamespaceScoped(kyaml.TypeMeta{APIVersion: o.GetAPIVersion(), Kind: o.GetKind()})
		}
		fn(o, namespaced, found)
	}
}

// Describe names an object as Kind/namespace/name, or Kind/name for a
// cluster-scoped one: the prefix of every error about an object.
func Describe(o *unstructured.Unstructured) string {
	if ns := o.GetNamespace(); ns != "" {
		return o.GetKind() + "/" + ns + "/" + o.GetName()
	}
	return o.GetKind() + "/" + o.GetName()
}
