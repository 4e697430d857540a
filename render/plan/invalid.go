package plan

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/schema"
	"github.com/roleout/roleout/render/validate"
)

// InvalidObjectsError is New's error when the API server would refuse
// objects of the render (rule 2 of the package documentation). The app
// is not planned, so nothing of it is predicted or applied.
type InvalidObjectsError struct {
	// Objects are the invalid objects in render order, each with every
	// reason.
	Objects []InvalidObject
}

// InvalidObject is an object of the render the API server would refuse,
// with what it was checked against and why.
type InvalidObject struct {
	Ref object.Ref
	// Schema and CRD say what the object was checked against
	// (validate.Validation).
	Schema schema.Schema
	CRD    string
	Errors []validate.FieldError
}

// maxInvalidLines bounds the reasons an InvalidObjectsError prints; the
// rest are counted.
const maxInvalidLines = 20

// Error lists the invalid objects, one reason a line, each prefixed with
// its object: at most maxInvalidLines reasons.
func (e *InvalidObjectsError) Error() string {
	total := 0
	for _, o := range e.Objects {
		total += len(o.Errors)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of the rendered objects would be refused by the API server (Kubernetes %s, or the object's CRD): fix them in the source; nothing of the app is applied",
		len(e.Objects), schema.KubernetesVersion)
	lines := 0
	for _, o := range e.Objects {
		for _, fe := range o.Errors {
			if lines == maxInvalidLines {
				fmt.Fprintf(&b, "\n… and %d more", total-lines)
				return b.String()
			}
			fmt.Fprintf(&b, "\n%s: %s%s", o.Ref, fe, o.schemaNote())
			lines++
		}
	}
	return b.String()
}

// schemaNote names a custom resource's CRD and where it came from.
func (o InvalidObject) schemaNote() string {
	switch {
	case o.CRD == "":
		return ""
	case o.Schema == schema.SchemaBuiltin:
		return " (CRD " + o.CRD + ", built into roleout)"
	}
	return " (CRD " + o.CRD + ", from the " + string(o.Schema) + ")"
}

// checkObjects checks every object as the API server would
// (validate.Validate, with the CRDs of src) and returns the objects
// of kinds roleout has no schema for, which it cannot check; an
// *InvalidObjectsError when any object is invalid.
func checkObjects(objs []*unstructured.Unstructured, src schema.Sources) ([]object.Ref, error) {
	var unchecked []object.Ref
	invalid := &InvalidObjectsError{}
	for _, o := range objs {
		v, err := validate.Validate(o, src)
		if err != nil {
			return nil, err
		}
		switch {
		case v.Schema == "":
			unchecked = append(unchecked, object.RefOf(o))
		case len(v.Errors) > 0:
			invalid.Objects = append(invalid.Objects, InvalidObject{Ref: object.RefOf(o), Schema: v.Schema, CRD: v.CRD, Errors: v.Errors})
		}
	}
	if len(invalid.Objects) > 0 {
		return nil, invalid
	}
	return unchecked, nil
}
