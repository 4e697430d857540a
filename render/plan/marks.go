package plan

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
)

// mark is what an object's internal annotations said.
type mark struct {
	source   string // object.SourcePathAnnotation
	restored string // object.RestoredRoleAnnotation
}

// takeMarks returns objs with the internal annotations removed: objects
// that carry any are copied (objs is not changed), the others are
// returned as they are. It returns what each carried, by the returned
// object.
func takeMarks(objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, map[*unstructured.Unstructured]mark) {
	out := make([]*unstructured.Unstructured, len(objs))
	marks := map[*unstructured.Unstructured]mark{}
	for i, o := range objs {
		out[i] = o
		ann := o.GetAnnotations()
		internal := false
		for k := range ann {
			internal = internal || strings.HasPrefix(k, object.InternalAnnotationPrefix)
		}
		if !internal {
			continue
		}
		c := o.DeepCopy()
		m := mark{source: ann[object.SourcePathAnnotation], restored: ann[object.RestoredRoleAnnotation]}
		for k := range ann {
			if strings.HasPrefix(k, object.InternalAnnotationPrefix) {
				delete(ann, k)
			}
		}
		object.SetAnnotations(c, ann)
		out[i], marks[c] = c, m
	}
	return out, marks
}

// MarkRestored puts objects a rollback restores into role: New
// groups them there, whatever the role's criteria say (their source
// paths, say, are not recorded in a revision).
func MarkRestored(objs []*unstructured.Unstructured, role string) {
	for _, o := range objs {
		ann := o.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[object.RestoredRoleAnnotation] = role
		o.SetAnnotations(ann)
	}
}
