package plan

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	rschema "github.com/roleout/roleout/render/schema"
)

// Scopes say which kinds are namespaced (true) and which cluster-scoped
// (false). A kind that is absent is of unknown scope.
type Scopes map[schema.GroupKind]bool

// KindScopes returns the scope of every kind among objs (docs/design.md,
// "Safety and trust": facts come from the cluster). The first source that
// knows a kind decides: live, what the cluster the app applies to serves
// (nil offline); then the kinds of the Kubernetes version roleout links
// (render/schema.BuiltinScope); then the CustomResourceDefinitions among
// objs, for kinds nothing else serves yet; last, the published scope of
// a widely installed CRD's kind (render/schema.WellKnownScope: Flux's,
// OLM's, cert-manager's, ...), so that an offline plan places objects
// whose CRD the cluster installs from elsewhere. A render's CRD cannot
// change the scope of a kind the cluster or Kubernetes already defines. A
// kind none of them knows is left out: CheckDestinations refuses its
// objects.
func KindScopes(objs []*unstructured.Unstructured, live Scopes) Scopes {
	crds := Scopes{}
	for _, o := range objs {
		if gk, namespaced, ok := rschema.CRDScope(o); ok {
			crds[gk] = namespaced
		}
	}
	out := Scopes{}
	for _, o := range objs {
		gk := o.GroupVersionKind().GroupKind()
		if _, done := out[gk]; done {
			continue
		}
		if ns, ok := live[gk]; ok {
			out[gk] = ns
		} else if ns, ok := rschema.BuiltinScope(gk); ok {
			out[gk] = ns
		} else if ns, ok := crds[gk]; ok {
			out[gk] = ns
		} else if ns, ok := rschema.WellKnownScope(gk); ok {
			out[gk] = ns
		}
	}
	return out
}

// Kinds returns the distinct kinds of objs, in order of first appearance:
// what to ask a cluster the scope of.
func Kinds(objs []*unstructured.Unstructured) []schema.GroupKind {
	seen := map[schema.GroupKind]bool{}
	var out []schema.GroupKind
	for _, o := range objs {
		if gk := o.GroupVersionKind().GroupKind(); !seen[gk] {
			seen[gk] = true
			out = append(out, gk)
		}
	}
	return out
}

// DefaultNamespace sets namespace on every namespaced object that names
// none, and clears the namespace of every cluster-scoped one (kustomize's
// namespace field sets it on kinds kustomize does not know; the API server
// ignores it), as scopes say. An object of unknown scope is taken as
// namespaced, as kubectl does, for display: CheckDestinations refuses it.
func DefaultNamespace(objs []*unstructured.Unstructured, namespace string, scopes Scopes) {
	for _, o := range objs {
		namespaced, known := scopes[o.GroupVersionKind().GroupKind()]
		switch {
		case known && !namespaced:
			o.SetNamespace("")
		case o.GetNamespace() == "":
			o.SetNamespace(namespace)
		}
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
