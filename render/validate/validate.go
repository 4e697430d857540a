package validate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/roleout/roleout/render/schema"
)

// Validation is what Validate found out about an object: the schema it
// was checked against and every reason the API server would refuse it.
type Validation struct {
	// Schema is where the schema came from: schema.SchemaBuiltin for a kind of
	// Kubernetes v1.37.2 (its types and validation, linked) and for a
	// custom kind whose CRD roleout carries, schema.SchemaRender or
	// schema.SchemaCluster for a custom kind's CRD; "" when roleout has no schema
	// for the kind and did not check the object.
	Schema schema.Schema
	// CRD names the CustomResourceDefinition a custom resource was
	// checked against; "" for a built-in kind.
	CRD string
	// Errors are the reasons the API server would refuse the object,
	// sorted by field; none when it would take it.
	Errors []FieldError
}

// FieldError is one reason the API server would refuse an object: the
// field, as a path from the object's root
// (spec.template.spec.containers[0].image), and what is wrong with it, in
// the API server's words where it has them.
type FieldError struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// String is the error as `field: reason`.
func (e FieldError) String() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// Validate checks o as the API server would check it on a server-side
// apply that creates it, offline, and returns every reason it would
// refuse o:
//
//   - A kind of Kubernetes v1.37.2 goes through server-side apply's
//     check against the kind's OpenAPI schema (an unknown field, a value
//     of the wrong type, two list entries with one key), then, for the
//     kinds in createStrategies, through the API server's own defaulting
//     and create validation (a Deployment without a selector or a
//     container without an image); the other kinds' metadata is
//     validated.
//   - A custom resource is checked against its CRD, taken as predictions
//     take it (the render's, else the cluster's, else the one built in,
//     schema.For): unknown fields where the structural schema prunes, then
//     the schema's validation, list types, embedded metadata and
//     x-kubernetes-validations rules, after the API server's null
//     pruning and defaulting.
//   - A CustomResourceDefinition is decoded strictly and its schemas
//     must be structural.
//
// A kind roleout has no schema for is not checked (Validation.Schema is
// ""). The error is for a schema roleout cannot read (a CRD that is no
// CRD, the built-in CRDs); an invalid object is a Validation with
// Errors. Validate does not change o.
func Validate(o *unstructured.Unstructured, src schema.Sources) (Validation, error) {
	gvk := o.GroupVersionKind()
	switch {
	case gvk.GroupKind() == crdKind:
		return Validation{Schema: schema.SchemaBuiltin, Errors: validateCRD(o)}, nil
	case builtinKind(gvk):
		return Validation{Schema: schema.SchemaBuiltin, Errors: validateBuiltin(o)}, nil
	}
	if reason := unservedBuiltin(gvk); reason != "" {
		return Validation{Schema: schema.SchemaBuiltin, Errors: []FieldError{{Field: "apiVersion", Reason: reason}}}, nil
	}
	crd, source, err := schema.For(o, src)
	if err != nil || crd == nil {
		return Validation{}, err
	}
	errs, err := validateCustom(o, crd)
	if err != nil {
		return Validation{}, fmt.Errorf("%s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
	}
	return Validation{Schema: source, CRD: crd.GetName(), Errors: errs}, nil
}

// maxReason bounds a reason: an invalid value is quoted in it, and a
// value can be a whole pod template.
const maxReason = 300

// fieldErrors turns the API server's field errors into FieldErrors.
func fieldErrors(errs field.ErrorList) []FieldError {
	out := make([]FieldError, 0, len(errs))
	for _, e := range errs {
		out = append(out, FieldError{Field: e.Field, Reason: e.ErrorBody()})
	}
	return out
}

// sortErrors sorts errs by field and reason, cuts long reasons and drops
// repeats: checks that walk maps report in no fixed order, and two
// checks can find the same fault.
func sortErrors(errs []FieldError) []FieldError {
	if len(errs) == 0 {
		return nil
	}
	for i, e := range errs {
		if len(e.Reason) > maxReason {
			errs[i].Reason = strings.ToValidUTF8(e.Reason[:maxReason], "") + "…"
		}
	}
	slices.SortFunc(errs, func(a, b FieldError) int {
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.Reason, b.Reason))
	})
	return slices.Compact(errs)
}
