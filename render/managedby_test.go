package render

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
)

// TestFixManagedBy: kustomize's "kustomize-(devel)", which the API server
// refuses, becomes a valid value naming the linked library; a value the
// repository wrote, and objects without the label, are left alone.
func TestFixManagedBy(t *testing.T) {
	t.Parallel()
	mk := func(v string) *unstructured.Unstructured {
		o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}}
		if v != "" {
			o.SetLabels(map[string]string{managedByLabel: v, "app": "web"})
		}
		return o
	}
	devel, own, helm, none := mk("kustomize-(devel)"), mk("kustomize-v5.8.0"), mk("Helm"), mk("")
	fixManagedBy([]*unstructured.Unstructured{devel, own, helm, none})
	got := devel.GetLabels()[managedByLabel]
	if errs := validation.IsValidLabelValue(got); len(errs) > 0 || !strings.HasPrefix(got, "kustomize") {
		t.Errorf("kustomize-(devel) became %q: %v", got, errs)
	}
	if devel.GetLabels()["app"] != "web" {
		t.Error("another label was lost")
	}
	if v := own.GetLabels()[managedByLabel]; v != "kustomize-v5.8.0" {
		t.Errorf("a valid value was changed to %q", v)
	}
	if v := helm.GetLabels()[managedByLabel]; v != "Helm" {
		t.Errorf("a value the repository set was changed to %q", v)
	}
	if none.GetLabels() != nil {
		t.Errorf("an object without the label got %v", none.GetLabels())
	}
	t.Logf("kustomize-(devel) → %s", got)
}
