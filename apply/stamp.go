package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
)

// appliedHashPurpose separates applied hashes from other keyed digests.
const appliedHashPurpose = "roleout.dev/applied-hash"

// stamp sets o's object.AppliedHashAnnotation to the hash of o's content, keyed
// with m for a Secret.
func stamp(o *unstructured.Unstructured, m *secrets.Masker) error {
	ann := o.GetAnnotations()
	delete(ann, object.AppliedHashAnnotation)
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
	h := hex.EncodeToString(sum[:10])
	if secrets.IsSecret(o.GetAPIVersion(), o.GetKind()) {
		if h = m.Sum(appliedHashPurpose, data); h == "" {
			return nil
		}
	}
	if ann == nil {
		ann = map[string]string{}
	}
	ann[object.AppliedHashAnnotation] = h
	o.SetAnnotations(ann)
	return nil
}

// alreadyApplied reports whether live carries the hash stamped on o and
// is not being deleted.
func alreadyApplied(live, o *unstructured.Unstructured) bool {
	if live == nil || live.GetDeletionTimestamp() != nil {
		return false
	}
	h := live.GetAnnotations()[object.AppliedHashAnnotation]
	return h != "" && h == o.GetAnnotations()[object.AppliedHashAnnotation]
}
