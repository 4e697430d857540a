package apply

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
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

// Result is the outcome of applying one object.
type Result struct {
	Object object.Ref
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
	// Applied is the object as the API server returned it from the write
	// (for Unchanged, as it was read just before): what a read right
	// after the apply would find, so WaitHealthy's first look at it
	// needs no GET (WaitOptions.Applied). Nil for a dry run or a failure.
	Applied *unstructured.Unstructured
}

func (r Result) fail(err error) Result {
	r.Action = Failed
	r.Err = fmt.Errorf("%s: %w", r.Object, err)
	return r
}
