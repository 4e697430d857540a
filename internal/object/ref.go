package object

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Ref identifies an object by apiVersion, kind, namespace and name: the
// one object identity of render's inventory, apply's results and the
// agent's records.
type Ref struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// RefOf returns o's reference.
func RefOf(o *unstructured.Unstructured) Ref {
	return Ref{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName()}
}

// String returns Kind/namespace/name, or Kind/name when cluster-scoped.
func (r Ref) String() string {
	if r.Namespace != "" {
		return r.Kind + "/" + r.Namespace + "/" + r.Name
	}
	return r.Kind + "/" + r.Name
}

// Group is the API group of r's apiVersion ("" for the core group).
func (r Ref) Group() string {
	gv, _ := schema.ParseGroupVersion(r.APIVersion)
	return gv.Group
}

// Key identifies the object across API versions: group/kind/namespace/name.
func (r Ref) Key() string {
	return r.Group() + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Empty returns an empty object that r names, for looking it up.
func (r Ref) Empty() *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetAPIVersion(r.APIVersion)
	o.SetKind(r.Kind)
	o.SetNamespace(r.Namespace)
	o.SetName(r.Name)
	return o
}

// WithLabel returns copies of objs with label key=value set.
func WithLabel(objs []*unstructured.Unstructured, key, value string) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		c := o.DeepCopy()
		l := c.GetLabels()
		if l == nil {
			l = map[string]string{}
		}
		l[key] = value
		c.SetLabels(l)
		out[i] = c
	}
	return out
}
