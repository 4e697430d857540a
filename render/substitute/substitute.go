package substitute

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/fluxcd/pkg/envsubst"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
)

// DisabledKey is the label or annotation that keeps an object as it is
// when its value is DisabledValue.
const (
	DisabledKey   = "kustomize.toolkit.fluxcd.io/substitute"
	DisabledValue = "disabled"
)

// nameRE is what a variable's name must look like, as Flux requires.
var nameRE = regexp.MustCompile(`^[_[:alpha:]][_[:alpha:][:digit:]]*$`)

// Options are one substitution's variables and rules.
type Options struct {
	// Vars are the variables by name.
	Vars map[string]string
	// AllowUnset makes an unset variable without a default the empty
	// string instead of an error.
	AllowUnset bool
	// MaxBytes bounds the YAML of all objects after substitution (a
	// long value used many times); 0 is no bound.
	MaxBytes int64
	// Fallback, when set, gives the value of a variable Vars lacks
	// (instead of AllowUnset's empty string, or an error).
	Fallback func(name string) string
}

// UnsetError is an unset variable without a default in an object.
type UnsetError struct {
	Object   string
	Variable string
}

func (e *UnsetError) Error() string {
	return fmt.Sprintf("%s: variable %s is not set: give it in substitute or substituteFrom, or a default in the manifest (${%s:=value}), or set substituteAllowUnset: true to make it empty",
		e.Object, e.Variable, e.Variable)
}

// CheckNames refuses variable names Flux refuses: a letter or _, then
// letters, digits and _.
func CheckNames(vars map[string]string) error {
	var bad []string
	for name := range vars {
		if !nameRE.MatchString(name) {
			bad = append(bad, fmt.Sprintf("%q", name))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("variable names %s are not valid: a name is a letter or _, then letters, digits and _", strings.Join(bad, ", "))
}

// Disabled reports whether o opts out of substitution.
func Disabled(o *unstructured.Unstructured) bool {
	return o.GetLabels()[DisabledKey] == DisabledValue || o.GetAnnotations()[DisabledKey] == DisabledValue
}

// Objects returns objs with their variables replaced; objects that opt
// out, and objects with no ${ in them, are returned as they are.
func Objects(objs []*unstructured.Unstructured, o Options) ([]*unstructured.Unstructured, error) {
	if err := CheckNames(o.Vars); err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, len(objs))
	var errs []error
	var total int64
	for i, obj := range objs {
		out[i] = obj
		if Disabled(obj) {
			continue
		}
		data, err := yaml.Marshal(obj.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", object.RefOf(obj).String(), err)
		}
		if !strings.Contains(string(data), "${") {
			total += int64(len(data))
			continue
		}
		var unset string
		text, err := envsubst.Eval(string(data), func(name string) (string, bool) {
			v, ok := o.Vars[name]
			if !ok && o.Fallback != nil {
				return o.Fallback(name), true
			}
			if !ok && !o.AllowUnset {
				unset = name
				return "", false
			}
			return v, true
		})
		if err != nil {
			if unset != "" {
				errs = append(errs, &UnsetError{Object: object.RefOf(obj).String(), Variable: unset})
			} else {
				errs = append(errs, fmt.Errorf("%s: substitute variables: %w", object.RefOf(obj).String(), err))
			}
			continue
		}
		if total += int64(len(text)); o.MaxBytes > 0 && total > o.MaxBytes {
			return nil, fmt.Errorf("%s: the objects are larger than %d bytes once their variables are substituted (render.maxBytes)", object.RefOf(obj).String(), o.MaxBytes)
		}
		c := &unstructured.Unstructured{}
		js, err := yaml.YAMLToJSON([]byte(text))
		if err == nil {
			err = c.UnmarshalJSON(js) // numbers as int64, as the render gives them
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: not an object once its variables are substituted: %w", object.RefOf(obj).String(), err))
			continue
		}
		out[i] = c
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
