package apply

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// TestTakenFields compares an applied Deployment with managedFields
// alone, as a first listing after the agent was stopped does.
func TestTakenFields(t *testing.T) {
	var applied map[string]any
	err := yaml.Unmarshal([]byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app.kubernetes.io/name: web}}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - {name: app, image: "web:v1", ports: [{containerPort: 80}]}
      tolerations: [{key: gpu, operator: Exists}]
`), &applied)
	if err != nil {
		t.Fatal(err)
	}
	const ours = "roleout/a"
	cases := []struct {
		name string
		now  []metav1.ManagedFieldsEntry
		want FieldDrift
	}{
		{"roleout owns what it applied; others own the rest", []metav1.ManagedFieldsEntry{
			entry(ours, metav1.ManagedFieldsOperationApply, "", ownedByRoleout),
			entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "", `{"f:metadata":{"f:annotations":{"f:deployment.kubernetes.io/revision":{}}}}`),
			entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "status", `{"f:status":{"f:replicas":{}}}`),
			entry("admission", metav1.ManagedFieldsOperationUpdate, "", `{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"sidecar\"}":{"f:image":{}}}}}}}`),
		}, FieldDrift{}},
		{"a field both set to one value is shared, not taken", []metav1.ManagedFieldsEntry{
			entry(ours, metav1.ManagedFieldsOperationApply, "", ownedByRoleout),
			entry("helm", metav1.ManagedFieldsOperationApply, "", `{"f:spec":{"f:replicas":{}}}`),
		}, FieldDrift{}},
		{"kubectl scale and set image while no agent watched", []metav1.ManagedFieldsEntry{
			entry(ours, metav1.ManagedFieldsOperationApply, "", `{"f:metadata":{"f:labels":{"f:app.kubernetes.io/name":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:name":{}}}}}}}`),
			entry("kubectl", metav1.ManagedFieldsOperationUpdate, "scale", `{"f:spec":{"f:replicas":{}}}`),
			entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, "", `{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{"f:image":{}}}}}}}`),
		}, FieldDrift{Fields: []string{"spec.replicas", "spec.template.spec.containers[name=app].image"}, Managers: []string{"kubectl", "kubectl-edit"}}},
		{"keyed by a number, a set and an index", []metav1.ManagedFieldsEntry{
			entry(ours, metav1.ManagedFieldsOperationApply, "", `{"f:metadata":{}}`),
			entry("other", metav1.ManagedFieldsOperationUpdate, "", `{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{"f:ports":{"k:{\"containerPort\":80}":{"f:containerPort":{}}}}},"f:tolerations":{"i:0":{"f:key":{}}}}}}}`),
		}, FieldDrift{Fields: []string{"spec.template.spec.containers[name=app].ports[containerPort=80].containerPort", "spec.template.spec.tolerations[0].key"}, Managers: []string{"other"}}},
		{"fields applied does not set are not drift", []metav1.ManagedFieldsEntry{
			entry(ours, metav1.ManagedFieldsOperationApply, "", `{"f:metadata":{}}`),
			entry("other", metav1.ManagedFieldsOperationUpdate, "", `{"f:spec":{"f:paused":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{"f:ports":{"k:{\"containerPort\":81}":{".":{}}}}}}}}}`),
		}, FieldDrift{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TakenFields(applied, tc.now, ours)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("TakenFields = %+v, want %+v", got, tc.want)
			}
		})
	}
}
