package validate

import (
	"context"
	"fmt"
	"math"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/roleout/roleout/render/schema"
)

// crdCheck is what the API server compiles from a CRD to serve one
// version of its custom resources: the structural schema (pruning,
// defaulting, list types, embedded metadata), the OpenAPI validator, the
// x-kubernetes-validations rules (nil when there are none), and what
// the CRD says of scope and subresources.
type crdCheck struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	rules      *cel.Validator
	namespaced bool
	// status says the status subresource is on: a create drops status.
	status bool
	// specReplicas is the scale subresource's specReplicasPath; "" for
	// none.
	specReplicas string
}

// crdChecks remembers the crdChecks of the CRDs validation was last
// given (compiling the StormService CRD's validator costs about as much
// as its structural schema).
var crdChecks = schema.NewCache(compileCRDCheck)

// compileCRDCheck compiles crd's check of version as the API server's
// CRD handler does (customresource_handler.go, strategy.go).
func compileCRDCheck(crd *unstructured.Unstructured, version string) (*crdCheck, error) {
	def, props, err := schema.VersionSchema(crd, version)
	if err != nil {
		return nil, err
	}
	s, err := schema.Structural(crd, version)
	if err != nil {
		return nil, err
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return nil, fmt.Errorf("CRD %s: compile the schema of %s: %w", crd.GetName(), version, err)
	}
	c := &crdCheck{
		structural: s,
		validator:  validator,
		rules:      cel.NewValidator(s, true, celconfig.PerCallLimit),
		namespaced: def.Spec.Scope == apiextensionsv1.NamespaceScoped,
	}
	for _, v := range def.Spec.Versions {
		if v.Name == version && v.Subresources != nil {
			c.status = v.Subresources.Status != nil
			if v.Subresources.Scale != nil {
				c.specReplicas = v.Subresources.Scale.SpecReplicasPath
			}
		}
	}
	return c, nil
}

// validateCustom checks custom resource o against crd in the API
// server's order for a server-side apply that creates it: fields the
// structural schema does not declare are refused (apply does not prune
// them silently; x-kubernetes-preserve-unknown-fields keeps them), nulls
// the schema does not allow are dropped and defaults set, status is
// dropped when it is a subresource, and what is left is validated:
// metadata, the OpenAPI schema, the scale subresource's replicas,
// embedded objects' metadata, list types and x-kubernetes-validations
// rules.
func validateCustom(o, crd *unstructured.Unstructured) ([]FieldError, error) {
	gvk := o.GroupVersionKind()
	if !schema.Serves(crd, gvk.Version) {
		return []FieldError{{Field: "apiVersion", Reason: fmt.Sprintf("Unsupported value: %q: CRD %s does not serve version %s", o.GetAPIVersion(), crd.GetName(), gvk.Version)}}, nil
	}
	c, err := crdChecks.Get(crd, gvk.Version)
	if err != nil {
		return nil, err
	}
	// As the API server reads it: JSON, whole numbers as int64 (a YAML
	// decoder may have made them float64).
	data, err := o.MarshalJSON()
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	var out []FieldError
	_, _, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return []FieldError{{Field: "metadata", Reason: err.Error()}}, nil
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, c.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	out = append(out, topLevelNulls(u.Object, c.structural)...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, c.structural)
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, c.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		out = append(out, fieldErrors(field.ErrorList{ferr})...)
	}
	for _, p := range append(unknown, paths...) {
		out = append(out, FieldError{Field: p, Reason: "unknown field: not declared in the CRD's schema"})
	}
	structuraldefaulting.Default(u.Object, c.structural)
	if c.status {
		delete(u.Object, "status")
	}
	return sortErrors(append(out, fieldErrors(c.validate(u))...)), nil
}

// validate is the API server's create validation of custom resource u,
// decoded, defaulted and prepared for create (customResourceStrategy).
func (c *crdCheck) validate(u *unstructured.Unstructured) field.ErrorList {
	errs := c.metadataErrors(u)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u.Object, c.validator)...)
	errs = append(errs, c.replicasErrors(u)...)
	// The embedded-metadata and CEL checks take a context for the
	// request; they do no I/O and read nothing in it, so validation stays
	// a pure function.
	ctx := context.TODO()
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u.Object, c.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, c.structural, u.Object)...)
	if c.rules == nil {
		return errs
	}
	if blocking(errs) {
		return append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	}
	ruleErrs, _ := c.rules.Validate(ctx, nil, c.structural, u.Object, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, ruleErrs...)
}

// metadataErrors validates u's metadata as the API server validates a
// custom resource's, in the request's namespace (default when u names
// none).
func (c *crdCheck) metadataErrors(u *unstructured.Unstructured) field.ErrorList {
	raw, _ := u.Object["metadata"].(map[string]any)
	var meta metav1.ObjectMeta
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &meta); err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), nil, err.Error())}
	}
	switch {
	case !c.namespaced:
		meta.Namespace = ""
	case meta.Namespace == "":
		meta.Namespace = metav1.NamespaceDefault
	}
	return apimachineryvalidation.ValidateObjectMeta(&meta, c.namespaced, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
}

// replicasErrors checks the scale subresource's replicas as the API
// server does (customResourceValidator.ValidateScaleSpec).
func (c *crdCheck) replicasErrors(u *unstructured.Unstructured) field.ErrorList {
	if c.specReplicas == "" {
		return nil
	}
	p := strings.TrimPrefix(c.specReplicas, ".")
	n, _, err := unstructured.NestedInt64(u.Object, strings.Split(p, ".")...)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(field.NewPath(p), n, err.Error())}
	case n < 0:
		return field.ErrorList{field.Invalid(field.NewPath(p), n, "should be a non-negative integer")}
	case n > math.MaxInt32:
		return field.ErrorList{field.Invalid(field.NewPath(p), n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}

// blocking reports whether errs hold an error after which the API server
// does not run x-kubernetes-validations rules (strategy.go,
// hasBlockingErr).
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// topLevelNulls refuses a null at a top-level field the schema does not
// let be null (spec: null): a create drops it, but kube-apiserver keeps
// it under server-side apply and refuses the object, "spec in body must
// be of type object". Nulls deeper down are pruned as a create prunes
// them; the server's answer to those under apply is not checked here.
func topLevelNulls(obj map[string]any, s *structuralschema.Structural) []FieldError {
	var out []FieldError
	for name, v := range obj {
		p, ok := s.Properties[name]
		if !ok || v != nil || p.Nullable || p.Type == "" {
			continue
		}
		out = append(out, FieldError{Field: name, Reason: fmt.Sprintf("Invalid value: \"null\": %s in body must be of type %s: \"null\"", name, p.Type)})
	}
	return out
}
