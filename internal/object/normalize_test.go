package object

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestNormalize(t *testing.T) {
	cases := []struct {
		name string
		in   map[string]any
		want map[string]any
	}{
		{name: "server fields, status and bookkeeping go",
			in: map[string]any{"kind": "ConfigMap", "status": map[string]any{"x": int64(1)}, "metadata": map[string]any{
				"name": "c", "uid": "u", "resourceVersion": "7", "generation": int64(2), "deletionGracePeriodSeconds": int64(30),
				"managedFields": []any{}, "labels": map[string]any{},
				"annotations": map[string]any{lastAppliedAnnotation: "{}", AppliedHashAnnotation: "abc"}}},
			want: map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": "c"}}},
		{name: "what the user wrote stays",
			in:   map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": "c", "labels": map[string]any{"a": "b"}, "annotations": map[string]any{"x": "y"}}, "data": map[string]any{"k": "v"}},
			want: map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": "c", "labels": map[string]any{"a": "b"}, "annotations": map[string]any{"x": "y"}}, "data": map[string]any{"k": "v"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := &unstructured.Unstructured{Object: tc.in}
			if diff := cmp.Diff(tc.want, Normalize(in)); diff != "" {
				t.Errorf("Normalize (-want +got):\n%s", diff)
			}
			if _, ok := tc.in["metadata"].(map[string]any)["name"]; !ok {
				t.Error("Normalize changed its input")
			}
		})
	}
	if Normalize(nil) != nil {
		t.Error("Normalize(nil) is not nil")
	}
}
