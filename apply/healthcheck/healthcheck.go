package healthcheck

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Rule is one kind's health rule, as the config writes it.
type Rule struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Current is true when the object is healthy.
	Current string `json:"current"`
	// InProgress, when set, is true while the object is still on its way.
	InProgress string `json:"inProgress,omitempty"`
	// Failed, when set, is true when the object will not become healthy.
	Failed string `json:"failed,omitempty"`
}

// Status is what a rule says of an object.
type Status string

// The statuses a rule gives, named as kstatus names them.
const (
	Current    Status = "Current"
	InProgress Status = "InProgress"
	Failed     Status = "Failed"
)

// Rules are compiled rules by group and kind.
type Rules struct {
	byKind map[schema.GroupKind]compiled
}

// compiled is one rule's programs, in evaluation order.
type compiled struct {
	checks []check
}

type check struct {
	status Status
	expr   string
	prg    cel.Program
}

// maxCost bounds one expression's evaluation (CEL's cost units): rules
// are written by the operator, but run on objects others write.
const maxCost = 1_000_000

// Compile compiles rules; later rules for the same group and kind win
// (an app's over the agent's defaults, when the app's come last). The
// error names the rule and the expression.
func Compile(rules []Rule) (*Rules, error) {
	env, err := cel.NewEnv(variables()...)
	if err != nil {
		return nil, err
	}
	out := &Rules{byKind: map[schema.GroupKind]compiled{}}
	var errs []error
	for i, r := range rules {
		gv, err := schema.ParseGroupVersion(r.APIVersion)
		if err != nil || r.Kind == "" {
			errs = append(errs, fmt.Errorf("[%d]: apiVersion %q and kind %q must name a kind (example.com/v1, Widget)", i, r.APIVersion, r.Kind))
			continue
		}
		if strings.TrimSpace(r.Current) == "" {
			errs = append(errs, fmt.Errorf("[%d] %s: current is required: a CEL expression true when the object is healthy", i, r.Kind))
			continue
		}
		var c compiled
		for _, e := range []struct {
			field  string
			status Status
			expr   string
		}{{"inProgress", InProgress, r.InProgress}, {"failed", Failed, r.Failed}, {"current", Current, r.Current}} {
			if strings.TrimSpace(e.expr) == "" {
				continue
			}
			prg, err := program(env, e.expr)
			if err != nil {
				errs = append(errs, fmt.Errorf("[%d] %s.%s %q: %w", i, r.Kind, e.field, e.expr, err))
				continue
			}
			c.checks = append(c.checks, check{e.status, e.expr, prg})
		}
		out.byKind[schema.GroupKind{Group: gv.Group, Kind: r.Kind}] = c
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// variables declares the top-level fields of any object as dynamic
// variables.
func variables() []cel.EnvOption {
	var out []cel.EnvOption
	for _, name := range []string{"apiVersion", "kind", "metadata", "spec", "status", "data", "stringData", "type", "rules", "subjects", "roleRef", "webhooks"} {
		out = append(out, cel.Variable(name, cel.DynType))
	}
	return append(out, cel.OptionalTypes())
}

// program compiles one expression, which must be a boolean.
func program(env *cel.Env, expr string) (cel.Program, error) {
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return nil, iss.Err()
	}
	if t := ast.OutputType(); t != cel.BoolType && t != cel.DynType {
		return nil, fmt.Errorf("must be true or false, is of type %s", t)
	}
	return env.Program(ast, cel.CostLimit(maxCost))
}

// For reports whether rs has a rule for o's kind.
func (rs *Rules) For(o *unstructured.Unstructured) bool {
	if rs == nil {
		return false
	}
	_, ok := rs.byKind[o.GroupVersionKind().GroupKind()]
	return ok
}

// Evaluate returns what o's kind's rule says of o, and a message; ok is
// false when rs has no rule for the kind.
func (rs *Rules) Evaluate(o *unstructured.Unstructured) (st Status, msg string, ok bool) {
	if rs == nil {
		return "", "", false
	}
	c, ok := rs.byKind[o.GroupVersionKind().GroupKind()]
	if !ok {
		return "", "", false
	}
	vars := map[string]any{}
	for k, v := range o.Object {
		vars[k] = v
	}
	for _, name := range []string{"metadata", "spec", "status"} {
		if _, set := vars[name]; !set {
			vars[name] = map[string]any{}
		}
	}
	for _, ch := range c.checks {
		out, _, err := ch.prg.Eval(vars)
		if err != nil {
			return InProgress, fmt.Sprintf("health rule %q: %v", ch.expr, err), true
		}
		if b, isBool := out.Value().(bool); isBool && b {
			return ch.status, fmt.Sprintf("health rule: %s", ch.expr), true
		} else if !isBool {
			return InProgress, fmt.Sprintf("health rule %q gave %v, not true or false", ch.expr, out.Value()), true
		}
	}
	return InProgress, "no health rule is true yet", true
}
