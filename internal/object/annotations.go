package object

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// SetAnnotations sets o's annotations, removing the field when there are
// none: kustomize never renders an empty annotations map, so an object
// whose internal annotations are removed is what kustomize rendered.
func SetAnnotations(o *unstructured.Unstructured, ann map[string]string) {
	if len(ann) == 0 {
		unstructured.RemoveNestedField(o.Object, "metadata", "annotations")
		return
	}
	o.SetAnnotations(ann)
}
