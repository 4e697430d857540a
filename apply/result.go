package apply

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Action is what applying an object did.
type Action string

// The Actions of Result.
const (
	Created    Action = "created"
	Configured Action = "configured"
	Unchanged  Action = "unchanged"
	Recreated  Action = "recreated"
	Deleted    Action = "deleted"
	// Skipped: prune left the object alone (not this app's, protected or
	// already gone).
	Skipped Action = "skipped"
	Failed  Action = "failed"
)

// ObjectRef identifies an object.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// RefOf returns o's reference.
func RefOf(o *unstructured.Unstructured) ObjectRef {
	return ObjectRef{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName()}
}

// object returns an empty object that ref names, for looking it up.
func (r ObjectRef) object() *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetAPIVersion(r.APIVersion)
	o.SetKind(r.Kind)
	o.SetNamespace(r.Namespace)
	o.SetName(r.Name)
	return o
}

// String returns Kind/namespace/name, or Kind/name when cluster-scoped.
func (r ObjectRef) String() string {
	if r.Namespace != "" {
		return r.Kind + "/" + r.Namespace + "/" + r.Name
	}
	return r.Kind + "/" + r.Name
}

// Result is the outcome of applying one object.
type Result struct {
	Object ObjectRef
	Action Action
	// Err is set when Action is Failed; it names the object.
	Err error
	// Reason explains a Skipped action.
	Reason string
	// Live and Merged are the object before and after a dry-run apply
	// (Live is nil when it does not exist yet).
	Live, Merged *unstructured.Unstructured
	// ResourceVersion is the object's version after a write (not a dry
	// run): watchers tell their own writes from others' by it.
	ResourceVersion string
}

func (r Result) fail(err error) Result {
	r.Action = Failed
	r.Err = fmt.Errorf("%s: %w", r.Object, err)
	return r
}
