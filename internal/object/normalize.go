package object

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// AppliedHashAnnotation is the annotation roleout stamps on what it
// applies: the hash of the applied content, so that an unchanged object
// is not written again. It is roleout's bookkeeping, never a change.
const AppliedHashAnnotation = "roleout.dev/applied-hash"

// lastAppliedAnnotation is kubectl's client-side-apply record.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// serverOwnedMetadata are the metadata fields the API server sets.
var serverOwnedMetadata = []string{
	"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
	"deletionGracePeriodSeconds", "managedFields", "selfLink",
}

// Normalize returns a deep copy of o's content without status, the
// metadata the server owns, kubectl's last-applied annotation and
// roleout's applied hash; empty labels and annotations maps are dropped.
// A nil o gives nil.
func Normalize(o *unstructured.Unstructured) map[string]any {
	if o == nil {
		return nil
	}
	c := o.DeepCopy().Object
	delete(c, "status")
	md, ok := c["metadata"].(map[string]any)
	if !ok {
		return c
	}
	for _, f := range serverOwnedMetadata {
		delete(md, f)
	}
	if ann, ok := md["annotations"].(map[string]any); ok {
		delete(ann, lastAppliedAnnotation)
		delete(ann, AppliedHashAnnotation)
		if len(ann) == 0 {
			delete(md, "annotations")
		}
	}
	if l, ok := md["labels"].(map[string]any); ok && len(l) == 0 {
		delete(md, "labels")
	}
	return c
}
