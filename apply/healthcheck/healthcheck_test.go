package healthcheck

import (
	"strings"
	"testing"

	"github.com/roleout/roleout/internal/testobjects"
)

// TestEvaluate: a kind's rule decides in the order inProgress, failed,
// current; none true, or an expression on a field the object does not
// have yet, is in progress; an object of another kind has no rule.
func TestEvaluate(t *testing.T) {
	rules, err := Compile([]Rule{{
		APIVersion: "example.com/v1", Kind: "Widget",
		Current:    "status.ready == true",
		Failed:     "status.?error.orValue('') != ''",
		InProgress: "status.?observedGeneration.orValue(0) < metadata.generation",
	}, {APIVersion: "example.com/v1", Kind: "Gadget", Current: "status.ready == true"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, doc string
		want      Status
		msg       string
	}{
		{"ready", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, generation: 2}, status: {observedGeneration: 2, ready: true}}`, Current, "status.ready == true"},
		{"failed", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, generation: 2}, status: {observedGeneration: 2, ready: false, error: boom}}`, Failed, "status.?error"},
		{"not observed yet", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, generation: 3}, status: {observedGeneration: 2, ready: true}}`, InProgress, "observedGeneration"},
		{"no status yet", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, generation: 1}}`, InProgress, "observedGeneration"},
		{"a field missing", `{apiVersion: example.com/v1, kind: Gadget, metadata: {name: g}}`, InProgress, "health rule \"status.ready == true\": no such key: ready"},
		{"nothing true", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, generation: 1}, status: {observedGeneration: 1, ready: false}}`, InProgress, "no health rule is true yet"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, msg, ok := rules.Evaluate(testobjects.One(t, c.doc))
			if !ok || st != c.want || !strings.Contains(msg, c.msg) {
				t.Errorf("Evaluate = %s, %q, %v; want %s with %q", st, msg, ok, c.want, c.msg)
			}
		})
	}
	if _, _, ok := rules.Evaluate(testobjects.One(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}}`)); ok {
		t.Error("a Deployment has a rule")
	}
}

// TestCompileErrors: a missing current, an expression that does not
// compile and one that is no boolean are errors naming the rule.
func TestCompileErrors(t *testing.T) {
	for _, c := range []struct {
		rule Rule
		want string
	}{
		{Rule{APIVersion: "example.com/v1", Kind: "Widget"}, "current is required"},
		{Rule{APIVersion: "example.com/v1", Kind: "Widget", Current: "status.ready =="}, "Widget.current"},
		{Rule{APIVersion: "example.com/v1", Kind: "Widget", Current: "'yes'"}, "must be true or false"},
		{Rule{APIVersion: "a/b/c", Kind: "Widget", Current: "true"}, "must name a kind"},
	} {
		if _, err := Compile([]Rule{c.rule}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Compile(%+v) = %v; want %q", c.rule, err, c.want)
		}
	}
}
