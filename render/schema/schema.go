package schema

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

// Schema says where the schema a prediction or a validation applied came
// from.
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

// Sources are the CustomResourceDefinitions a custom resource's schema
// may come from, in order: the render's, the cluster's, built in.
type Sources struct {
	// RenderCRDs are the CustomResourceDefinitions of the render. They
	// win over CRDs: the prerequisite step applies them before any wave,
	// so the API server serves the object with them.
	RenderCRDs []*unstructured.Unstructured
	// CRDs are the CustomResourceDefinitions the cluster has.
	CRDs []*unstructured.Unstructured
	// NoBuiltinCRDs turns off the fallback to BuiltinCRDs: a custom
	// resource whose CRD is in neither RenderCRDs nor CRDs has no schema.
	// Tests use it to show what the schema changes.
	NoBuiltinCRDs bool
}

// For returns the CustomResourceDefinition that gives custom resource o
// its schema and where it came from: the render's, else the cluster's,
// else a built-in one that serves o's version (unless
// src.NoBuiltinCRDs); nil and "" when there is none. A CRD in the render
// or the cluster is taken as the API server would take it, whatever
// versions it serves (one that does not serve o's is an error later:
// the server would refuse o).
func For(o *unstructured.Unstructured, src Sources) (*unstructured.Unstructured, Schema, error) {
	if crd := FindCRD(o, src.RenderCRDs); crd != nil {
		return crd, SchemaRender, nil
	}
	if crd := FindCRD(o, src.CRDs); crd != nil {
		return crd, SchemaCluster, nil
	}
	if src.NoBuiltinCRDs {
		return nil, "", nil
	}
	builtin, err := BuiltinCRDs()
	if err != nil {
		return nil, "", err
	}
	if crd := FindCRD(o, builtin); crd != nil && Serves(crd, o.GroupVersionKind().Version) {
		return crd, SchemaBuiltin, nil
	}
	return nil, "", nil
}

// FindCRD returns the CustomResourceDefinition among crds that defines
// o's kind, or nil.
func FindCRD(o *unstructured.Unstructured, crds []*unstructured.Unstructured) *unstructured.Unstructured {
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

// Serves reports whether crd serves version. It reads crd in place: a
// copy of a large CRD's versions costs more than a prediction.
func Serves(crd *unstructured.Unstructured, version string) bool {
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

// AsStored applies to o what the API server does to a custom resource
// with crd's structural schema for o's version: unknown fields pruned,
// schema defaults set (the CustomResource handler's order).
func AsStored(o *unstructured.Unstructured, crd *unstructured.Unstructured) error {
	s, err := Structural(crd, o.GroupVersionKind().Version)
	if err != nil {
		return err
	}
	structuralpruning.Prune(o.Object, s, true)
	structuraldefaulting.Default(o.Object, s)
	return nil
}

// Structural returns crd's structural schema for version, compiled once
// per CRD object and version (structuralSchemas).
func Structural(crd *unstructured.Unstructured, version string) (*structuralschema.Structural, error) {
	return structuralSchemas.Get(crd, version)
}

// structural compiles crd's structural schema for version.
func structural(crd *unstructured.Unstructured, version string) (*structuralschema.Structural, error) {
	_, props, err := VersionSchema(crd, version)
	if err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(props)
	if err != nil {
		return nil, fmt.Errorf("CRD %s has no structural schema: %w", crd.GetName(), err)
	}
	return s, nil
}

// VersionSchema returns crd as its Go type and its openAPIV3Schema for
// version in the API server's internal form.
func VersionSchema(crd *unstructured.Unstructured, version string) (*apiextensionsv1.CustomResourceDefinition, *apiextensions.JSONSchemaProps, error) {
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
