package apply

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func entry(manager string, op metav1.ManagedFieldsOperationType, sub, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, Subresource: sub, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

const ownedByRoleout = `{"f:metadata":{"f:labels":{"f:app.kubernetes.io/name":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`

func TestLostFields(t *testing.T) {
	was, ok, err := OwnedFields([]metav1.ManagedFieldsEntry{entry("roleout/a", metav1.ManagedFieldsOperationApply, "", ownedByRoleout)}, "roleout/a")
	if err != nil || !ok {
		t.Fatalf("OwnedFields = %v, %v", ok, err)
	}
	cases := []struct {
		name string
		now  []metav1.ManagedFieldsEntry
		want FieldDrift
	}{
		{"nothing changed", []metav1.ManagedFieldsEntry{
			entry("roleout/a", metav1.ManagedFieldsOperationApply, "", ownedByRoleout),
			entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "status", `{"f:status":{"f:replicas":{}}}`),
		}, FieldDrift{}},
		{"kubectl scale took replicas", []metav1.ManagedFieldsEntry{
			entry("roleout/a", metav1.ManagedFieldsOperationApply, "", `{"f:metadata":{"f:labels":{"f:app.kubernetes.io/name":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`),
			entry("kubectl", metav1.ManagedFieldsOperationUpdate, "scale", `{"f:spec":{"f:replicas":{}}}`),
		}, FieldDrift{Fields: []string{"spec.replicas"}, Managers: []string{"kubectl"}}},
		{"an edit took the image and a label", []metav1.ManagedFieldsEntry{
			entry("roleout/a", metav1.ManagedFieldsOperationApply, "", `{"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:name":{}}}}}}}`),
			entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, "", `{"f:metadata":{"f:labels":{"f:app.kubernetes.io/name":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{"f:image":{}}}}}}}`),
		}, FieldDrift{Fields: []string{"metadata", "spec.template.spec.containers[name=app].image"}, Managers: []string{"kubectl-edit"}}},
		{"roleout's entry is gone", nil, FieldDrift{Fields: []string{"metadata", "spec"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LostFields(was, tc.now, "roleout/a")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("LostFields = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestReadablePath(t *testing.T) {
	for in, want := range map[string]string{
		"f:spec" + pathSep + "f:replicas":                                           "spec.replicas",
		"f:metadata" + pathSep + "f:labels" + pathSep + "f:app.kubernetes.io/name":  "metadata.labels.app.kubernetes.io/name",
		"f:spec" + pathSep + "f:ports" + pathSep + `k:{"port":80,"protocol":"TCP"}`: "spec.ports[port=80,protocol=TCP]",
		"f:metadata" + pathSep + "f:finalizers" + pathSep + `v:"x"`:                 `metadata.finalizers[="x"]`,
	} {
		if got := ReadablePath(in); got != want {
			t.Errorf("ReadablePath(%q) = %q, want %q", in, got, want)
		}
	}
}
