package substitute

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/internal/testobjects"
)

// TestObjects: ${var}, ${var:=default} and operators are replaced as
// Flux replaces them, a number becomes a number, an object that opts out
// (label or annotation) is kept, and an unset variable is an error naming
// the object and the variable unless AllowUnset.
func TestObjects(t *testing.T) {
	objs := testobjects.Parse(t,
		`{apiVersion: apps/v1, kind: Deployment, metadata: {name: "web-${cluster_name}", namespace: apps},
		  spec: {replicas: "${replicas}", template: {spec: {containers: [{name: c, image: "web:${tag:=v1}", env: [{name: R, value: "${region^^}"}]}]}}}}`,
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: script, namespace: apps, labels: {kustomize.toolkit.fluxcd.io/substitute: disabled}},
		  data: {run.sh: "echo ${HOME}"}}`,
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: plain, namespace: apps}, data: {a: b}}`,
	)
	got, err := Objects(objs, Options{Vars: map[string]string{"cluster_name": "staging", "replicas": "3", "region": "eu-west"}})
	if err != nil {
		t.Fatal(err)
	}
	d := got[0]
	if d.GetName() != "web-staging" {
		t.Errorf("name %q", d.GetName())
	}
	if r, _, _ := unstructuredInt(d.Object, "spec", "replicas"); r != 3 {
		t.Errorf("replicas %v, want the number 3", d.Object["spec"].(map[string]any)["replicas"])
	}
	c := d.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if diff := cmp.Diff(map[string]any{"name": "c", "image": "web:v1", "env": []any{map[string]any{"name": "R", "value": "EU-WEST"}}}, c); diff != "" {
		t.Errorf("container (-want +got):\n%s", diff)
	}
	if got[1] != objs[1] || got[2] != objs[2] {
		t.Error("the opted-out and the plain ConfigMaps were rewritten")
	}

	_, err = Objects(objs[:1], Options{Vars: map[string]string{"replicas": "3"}})
	var unset *UnsetError
	if !errors.As(err, &unset) || unset.Object != "Deployment/apps/web-${cluster_name}" || unset.Variable != "cluster_name" {
		t.Errorf("unset variable: %v", err)
	}
	got, err = Objects(objs[:1], Options{AllowUnset: true})
	if err != nil || got[0].GetName() != "web-" {
		t.Errorf("AllowUnset: %v, name %q", err, got[0].GetName())
	}
	if _, err := Objects(objs[:1], Options{Vars: map[string]string{"bad-name": "x"}}); err == nil || !strings.Contains(err.Error(), `"bad-name"`) {
		t.Errorf("a bad name: %v", err)
	}
	if _, err := Objects(objs[:1], Options{Vars: map[string]string{"cluster_name": strings.Repeat("x", 1000), "replicas": "1", "region": "r"}, MaxBytes: 500}); err == nil ||
		!strings.Contains(err.Error(), "larger than 500 bytes") {
		t.Errorf("past MaxBytes: %v", err)
	}
}

func unstructuredInt(obj map[string]any, fields ...string) (int64, bool, error) {
	var v any = obj
	for _, f := range fields {
		m, ok := v.(map[string]any)
		if !ok {
			return 0, false, nil
		}
		v = m[f]
	}
	n, ok := v.(int64)
	return n, ok, nil
}
