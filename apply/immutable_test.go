package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/roleout/roleout/internal/object"
)

// TestApplyImmutableFieldsAndRecreate changes, on the test cluster, the
// three immutable fields the issue names: without roleout.dev/recreate the
// apply fails with an ImmutableError that names the field as the API
// server does; with it the object is deleted and created again (a new UID)
// carrying the new value.
func TestApplyImmutableFieldsAndRecreate(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	statefulSet := func(app string) string {
		return `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: imm-db, namespace: default}
spec:
  serviceName: imm-db
  replicas: 1
  selector: {matchLabels: {app: ` + app + `}}
  template:
    metadata: {labels: {app: ` + app + `}}
    spec: {containers: [{name: db, image: db:1}]}
`
	}
	job := func(image string) string {
		return `apiVersion: batch/v1
kind: Job
metadata: {name: imm-migrate, namespace: default}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: migrate, image: "` + image + `"}]}
`
	}
	service := func(ip string) string {
		return `apiVersion: v1
kind: Service
metadata: {name: imm-api, namespace: default}
spec: {clusterIP: ` + ip + `, ports: [{port: 80}]}
`
	}
	tests := []struct {
		name, before, after string
		wantFields          []ImmutableField
		// changed reads the changed field from the live object.
		changed []string
		want    string
	}{
		{
			name: "StatefulSet selector", before: statefulSet("imm-db"), after: statefulSet("imm-db-2"),
			wantFields: []ImmutableField{{Path: "spec.selector", Reason: "field is immutable"}},
			changed:    []string{"spec", "selector", "matchLabels", "app"}, want: "imm-db-2",
		},
		{
			name: "Job template", before: job("migrate:1"), after: job("migrate:2"),
			wantFields: []ImmutableField{{Path: "spec.template", Reason: "field is immutable"}},
			changed:    []string{"spec", "template", "spec", "containers"}, want: "migrate:2",
		},
		{
			name: "Service clusterIP", before: service("10.96.7.7"), after: service("10.96.7.8"),
			wantFields: []ImmutableField{{Path: "spec.clusterIPs[0]", Reason: "may not change once set"}},
			changed:    []string{"spec", "clusterIP"}, want: "10.96.7.8",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first := applyOne(t, a, obj(t, tc.before), Created)
			_, err := a.Apply(ctx, []*unstructured.Unstructured{obj(t, tc.after)}, ApplyOptions{})
			var immutable *ImmutableError
			if !errors.As(err, &immutable) {
				t.Fatalf("error %v, want an ImmutableError", err)
			}
			t.Log(err)
			if diff := cmp.Diff(tc.wantFields, immutable.Fields); diff != "" {
				t.Errorf("immutable fields (-want +got):\n%s", diff)
			}
			for _, want := range []string{object.RefOf(first).String(), tc.wantFields[0].Path, object.RecreateAnnotation + `: "true"`} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if len(err.Error()) > 400 {
				t.Errorf("error is %d characters long, want the field and its reason, not the API server's dump:\n%s", len(err.Error()), err)
			}
			if after := getLive(t, a, first); after.GetUID() != first.GetUID() {
				t.Errorf("a refused change without %s replaced the object", object.RecreateAnnotation)
			}

			recreate := obj(t, tc.after)
			recreate.SetAnnotations(map[string]string{object.RecreateAnnotation: "true"})
			applyOne(t, a, recreate, Recreated)
			second := getLive(t, a, first)
			if second.GetUID() == first.GetUID() {
				t.Errorf("recreate kept UID %s", first.GetUID())
			}
			if got := fieldString(second, tc.changed...); !strings.Contains(got, tc.want) {
				t.Errorf("after recreate %v = %s, want %s", tc.changed, got, tc.want)
			}
		})
	}
}

// applyOne applies o alone and checks the action.
func applyOne(t *testing.T, a *Applier, o *unstructured.Unstructured, want Action) *unstructured.Unstructured {
	t.Helper()
	res, err := a.Apply(context.Background(), []*unstructured.Unstructured{o}, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Action != want {
		t.Fatalf("apply %s: %s, want %s", res[0].Object, res[0].Action, want)
	}
	return getLive(t, a, o)
}

// getLive reads o's live copy.
func getLive(t *testing.T, a *Applier, o *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	live, err := a.Live(context.Background(), object.RefOf(o))
	if err != nil || live == nil {
		t.Fatalf("read %s: %v (exists %v)", object.RefOf(o), err, live != nil)
	}
	return live
}

// fieldString renders the field at path of o, whatever its type.
func fieldString(o *unstructured.Unstructured, path ...string) string {
	v, _, _ := unstructured.NestedFieldNoCopy(o.Object, path...)
	return fmt.Sprint(v)
}

// TestImmutableFields classifies the API server's refusals, built the way
// its validation builds them.
func TestImmutableFields(t *testing.T) {
	sts := schema.GroupKind{Group: "apps", Kind: "StatefulSet"}
	tests := []struct {
		name string
		err  error
		want []ImmutableField
		ok   bool
	}{
		{
			name: "Service clusterIP",
			err:  apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, "api", field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), []string{"10.96.0.9"}, "may not change once set")}),
			want: []ImmutableField{{Path: "spec.clusterIPs[0]", Reason: "may not change once set"}}, ok: true,
		},
		{
			name: "Job template, its value dumped",
			err:  apierrors.NewInvalid(schema.GroupKind{Group: "batch", Kind: "Job"}, "migrate", field.ErrorList{field.Invalid(field.NewPath("spec", "template"), `{"Spec": {"Command": ["sh", "-c", "echo a: b"]}}`, "field is immutable")}),
			want: []ImmutableField{{Path: "spec.template", Reason: "field is immutable"}}, ok: true,
		},
		{
			name: "StatefulSet spec outside the updatable fields",
			err:  apierrors.NewInvalid(sts, "db", field.ErrorList{field.Forbidden(field.NewPath("spec"), "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")}),
			want: []ImmutableField{{Path: "spec", Reason: "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"}}, ok: true,
		},
		{
			name: "an invalid value that may change",
			err:  apierrors.NewInvalid(sts, "db", field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), -1, "must be greater than or equal to 0")}),
		},
		{
			name: "a conflict",
			err:  apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "x", errors.New("apply failed")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := immutableFields(tc.err)
			if diff := cmp.Diff(tc.want, got); diff != "" || ok != tc.ok {
				t.Errorf("immutable %v, want %v; fields (-want +got):\n%s", ok, tc.ok, diff)
			}
		})
	}
}
