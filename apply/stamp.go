package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// AppliedHashAnnotation is set by Apply on every object it writes: a hash
// of exactly what was applied (the object with its labels, without this
// annotation). With ApplyOptions.SkipUnchanged, an object whose live copy
// carries the same hash is not written again: a rollout resumed after a
// crash, or a role in which only some objects changed, writes only what
// differs from what roleout last applied.
const AppliedHashAnnotation = "roleout.dev/applied-hash"

// stamp sets o's AppliedHashAnnotation to the hash of o's content.
func stamp(o *unstructured.Unstructured) error {
	ann := o.GetAnnotations()
	delete(ann, AppliedHashAnnotation)
	if len(ann) == 0 {
		ann = nil
	}
	o.SetAnnotations(ann)
	// encoding/json writes map keys sorted: the same content always
	// gives the same bytes.
	data, err := json.Marshal(o.Object)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	if ann == nil {
		ann = map[string]string{}
	}
	ann[AppliedHashAnnotation] = hex.EncodeToString(sum[:10])
	o.SetAnnotations(ann)
	return nil
}

// alreadyApplied reports whether live carries the hash stamped on o and
// is not being deleted.
func alreadyApplied(live, o *unstructured.Unstructured) bool {
	if live == nil || live.GetDeletionTimestamp() != nil {
		return false
	}
	h := live.GetAnnotations()[AppliedHashAnnotation]
	return h != "" && h == o.GetAnnotations()[AppliedHashAnnotation]
}
