package revision

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/secrets"
)

// MaskPrefix starts every masked Secret value.
const MaskPrefix = secrets.Prefix

// IsSecret reports whether o is a core v1 Secret.
func IsSecret(o *unstructured.Unstructured) bool {
	return secrets.IsSecret(o.GetAPIVersion(), o.GetKind())
}

// Record returns o as a role revision records it: normalised, and for a
// Secret with every data and stringData value replaced by a digest that
// changes when the value changes but does not reveal it. Secret values
// never reach the status branch.
func Record(o *unstructured.Unstructured) map[string]any {
	m := Normalize(o)
	if IsSecret(o) {
		secrets.Mask(m, o.GetNamespace()+"/"+o.GetName())
	}
	return m
}

// recordAll returns the records of objs sorted by group, kind,
// namespace and name.
func recordAll(objs []*unstructured.Unstructured) []map[string]any {
	out := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		out = append(out, Record(o))
	}
	sortObjects(out)
	return out
}
