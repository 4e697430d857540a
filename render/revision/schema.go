package revision

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// findCRD returns the CustomResourceDefinition among crds that defines
// o's kind, or nil.
func findCRD(o *unstructured.Unstructured, crds []*unstructured.Unstructured) *unstructured.Unstructured {
	gvk := o.GroupVersionKind()
	for _, c := range crds {
		group, _, _ := unstructured.NestedString(c.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(c.Object, "spec", "names", "kind")
		if group == gvk.Group && kind == gvk.Kind {
			return c
		}
	}
	return nil
}

// asStored applies to o what the API server does to a custom resource
// with crd's structural schema for o's version: unknown fields pruned,
// schema defaults set (the CustomResource handler's order).
func asStored(o *unstructured.Unstructured, crd *unstructured.Unstructured) error {
	s, err := structuralSchemas.get(crd, o.GroupVersionKind().Version)
	if err != nil {
		return err
	}
	structuralpruning.Prune(o.Object, s, true)
	structuraldefaulting.Default(o.Object, s)
	return nil
}

// structural returns crd's structural schema for version.
func structural(crd *unstructured.Unstructured, version string) (*structuralschema.Structural, error) {
	var def apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(crd.Object, &def); err != nil {
		return nil, fmt.Errorf("read CRD %s: %w", crd.GetName(), err)
	}
	for _, v := range def.Spec.Versions {
		if v.Name != version || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			return nil, fmt.Errorf("convert the schema of CRD %s: %w", crd.GetName(), err)
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			return nil, fmt.Errorf("CRD %s has no structural schema: %w", crd.GetName(), err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("CRD %s does not serve version %s", crd.GetName(), version)
}
