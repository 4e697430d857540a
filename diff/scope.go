package diff

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// Scope is the part of a cluster a diff may read: namespaced objects in
// the namespaces it holds. The nil Scope reads everything.
type Scope map[string]bool

// PreviewScope is what a preview of an app may read of the cluster
// (docs/design.md, "Safety and trust", Previews): namespaced objects in
// the app's namespace and in the Namespaces its last applied inventory
// declares. What a pull request adds elsewhere, cluster-scoped objects
// included, is never read.
func PreviewScope(namespace string, inventory []model.InventoryEntry) Scope {
	if namespace == "" {
		namespace = "default"
	}
	s := Scope{namespace: true}
	for _, e := range inventory {
		if e.Kind == "Namespace" && e.APIVersion == "v1" {
			s[e.Name] = true
		}
	}
	return s
}

// Reads reports whether the scope reads objects in namespace ("" for a
// cluster-scoped object).
func (s Scope) Reads(namespace string) bool {
	return s == nil || (namespace != "" && s[namespace])
}

// ReadsObject reports whether the scope reads ref: in a namespace it
// reads, and not a Secret unless the scope reads everything. A preview
// never compares a Secret with the live one: a pull request that names a
// live Secret would learn from "changed" or "unchanged" whether it
// guessed its value, and the live value's mask would be written to git.
func (s Scope) ReadsObject(ref object.Ref) bool {
	if s != nil && isSecret(ref) {
		return false
	}
	return s.Reads(ref.Namespace)
}

// isSecret reports whether ref is a core Secret.
func isSecret(ref object.Ref) bool { return ref.Kind == "Secret" && ref.Group() == "" }

// Filter returns the objects of objs the scope reads.
func (s Scope) Filter(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	if s == nil {
		return objs
	}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if s.ReadsObject(object.RefOf(o)) {
			out = append(out, o)
		}
	}
	return out
}
