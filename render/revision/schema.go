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

// Schema says where the schema a prediction applied came from.
type Schema string

// The Schemas of an Outcome.
const (
	// SchemaRender: a CustomResourceDefinition in the render, which the
	// prerequisite step applies before any wave, so the API server
	// serves the workload with it.
	SchemaRender Schema = "render"
	// SchemaCluster: the CustomResourceDefinition the cluster has.
	SchemaCluster Schema = "cluster"
	// SchemaBuiltin: built into roleout: the Kubernetes v1.37.2 types
	// for the apps kinds, and for the custom kinds the CRDs of the
	// controller modules roleout links (BuiltinCRDs).
	SchemaBuiltin Schema = "builtin"
)

// schemaFor returns the CustomResourceDefinition that gives custom
// resource o its schema and where it came from: the render's, else the
// cluster's, else a built-in one that serves o's version (unless
// opts.NoBuiltinCRDs); nil and "" when there is none. A CRD in the render
// or the cluster is taken as the API server would take it, whatever
// versions it serves (one that does not serve o's is an error later:
// the server would refuse o).
func schemaFor(o *unstructured.Unstructured, opts PredictOptions) (*unstructured.Unstructured, Schema, error) {
	if crd := findCRD(o, opts.RenderCRDs); crd != nil {
		return crd, SchemaRender, nil
	}
	if crd := findCRD(o, opts.CRDs); crd != nil {
		return crd, SchemaCluster, nil
	}
	if opts.NoBuiltinCRDs {
		return nil, "", nil
	}
	builtin, err := BuiltinCRDs()
	if err != nil {
		return nil, "", err
	}
	if crd := findCRD(o, builtin); crd != nil && serves(crd, o.GroupVersionKind().Version) {
		return crd, SchemaBuiltin, nil
	}
	return nil, "", nil
}

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

// serves reports whether crd serves version. It reads crd in place: a
// copy of a large CRD's versions costs more than a prediction.
func serves(crd *unstructured.Unstructured, version string) bool {
	versions, _, _ := unstructured.NestedFieldNoCopy(crd.Object, "spec", "versions")
	list, _ := versions.([]any)
	for _, v := range list {
		m, _ := v.(map[string]any)
		if served, _ := m["served"].(bool); served && m["name"] == version {
			return true
		}
	}
	return false
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
	_, props, err := versionSchema(crd, version)
	if err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(props)
	if err != nil {
		return nil, fmt.Errorf("CRD %s has no structural schema: %w", crd.GetName(), err)
	}
	return s, nil
}

// versionSchema returns crd as its Go type and its openAPIV3Schema for
// version in the API server's internal form.
func versionSchema(crd *unstructured.Unstructured, version string) (*apiextensionsv1.CustomResourceDefinition, *apiextensions.JSONSchemaProps, error) {
	var def apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(crd.Object, &def); err != nil {
		return nil, nil, fmt.Errorf("read CRD %s: %w", crd.GetName(), err)
	}
	for _, v := range def.Spec.Versions {
		if v.Name != version || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			return nil, nil, fmt.Errorf("convert the schema of CRD %s: %w", crd.GetName(), err)
		}
		return &def, &internal, nil
	}
	return nil, nil, fmt.Errorf("CRD %s does not serve version %s", crd.GetName(), version)
}
