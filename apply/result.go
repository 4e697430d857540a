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
	Failed     Action = "failed"
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
}

func (r Result) fail(err error) Result {
	r.Action = Failed
	r.Err = fmt.Errorf("%s: %w", r.Object, err)
	return r
}
