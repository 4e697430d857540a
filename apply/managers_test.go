package apply

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/model"
)

func TestHandOver(t *testing.T) {
	entry := func(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
	}
	const apply, update = metav1.ManagedFieldsOperationApply, metav1.ManagedFieldsOperationUpdate
	cases := []struct {
		name        string
		in, want    []metav1.ManagedFieldsEntry
		wantChanged bool
	}{
		{
			name: "renamed",
			in:   []metav1.ManagedFieldsEntry{entry("kubectl", update, `{"f:data":{"f:x":{}}}`), entry("roleout", apply, `{"f:data":{"f:a":{}}}`)},
			want: []metav1.ManagedFieldsEntry{entry("kubectl", update, `{"f:data":{"f:x":{}}}`), entry("roleout/shop", apply, `{"f:data":{"f:a":{}}}`)}, wantChanged: true,
		},
		{
			name: "merged into the new manager's entry",
			in:   []metav1.ManagedFieldsEntry{entry("roleout", apply, `{"f:data":{"f:a":{},"f:b":{}}}`), entry("roleout/shop", apply, `{"f:data":{"f:a":{}},"f:metadata":{}}`)},
			want: []metav1.ManagedFieldsEntry{entry("roleout/shop", apply, `{"f:data":{"f:a":{},"f:b":{}},"f:metadata":{}}`)}, wantChanged: true,
		},
		{
			name: "an update by the old manager stays",
			in:   []metav1.ManagedFieldsEntry{entry("roleout", update, `{"f:data":{}}`)},
			want: []metav1.ManagedFieldsEntry{entry("roleout", update, `{"f:data":{}}`)},
		},
		{
			name: "already migrated",
			in:   []metav1.ManagedFieldsEntry{entry("roleout/shop", apply, `{"f:data":{}}`)},
			want: []metav1.ManagedFieldsEntry{entry("roleout/shop", apply, `{"f:data":{}}`)},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, changed, err := handOver(tc.in, []string{"roleout"}, "roleout/shop")
			if err != nil {
				t.Fatal(err)
			}
			if changed != tc.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tc.wantChanged)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFieldManagerMigration applies a ConfigMap as "roleout", as
// installs before per-app field managers did, then as "roleout/shop"
// migrating from "roleout", without force, with one value changed and
// one key removed: no conflict, the removed key is gone (nothing was
// orphaned) and "roleout/shop" is the only applier left.
func TestFieldManagerMigration(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	cs := clientset(t)
	cm := func(data string) *unstructured.Unstructured {
		return obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: migrated, namespace: default}\ndata: {"+data+"}\n")
	}
	labels := map[string]string{"roleout.dev/app": "shop"}
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{cm("a: '1', b: '2'")}, ApplyOptions{Labels: labels}); err != nil {
		t.Fatal(err)
	}
	appliers := func(stage string) []string {
		live, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "migrated", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := yaml.Marshal(live.ManagedFields)
		t.Logf("managedFields %s:\n%s", stage, out)
		var names []string
		for _, e := range live.ManagedFields {
			names = append(names, string(e.Operation)+" "+e.Manager)
		}
		return names
	}
	if diff := cmp.Diff([]string{"Apply roleout"}, appliers("before")); diff != "" {
		t.Fatalf("managers before (-want +got):\n%s", diff)
	}
	opts := ApplyOptions{Labels: labels, FieldManager: "roleout/shop", Migrate: []string{FieldManager}}
	// A dry run (a diff) of the unmigrated object shows the removal.
	diffs, err := a.Diff(ctx, []*unstructured.Unstructured{cm("a: '1'")}, DiffOptions{ApplyOptions: opts})
	if err != nil || diffs[0].Change != model.Update {
		t.Errorf("dry run before migration: %v %+v, want an update removing b", err, diffs)
	}
	res, err := a.Apply(ctx, []*unstructured.Unstructured{cm("a: '10'")}, opts)
	if err != nil || res[0].Action != Configured {
		t.Fatalf("apply as roleout/shop: %v %v", err, actions(res))
	}
	if diff := cmp.Diff([]string{"Apply roleout/shop"}, appliers("after")); diff != "" {
		t.Errorf("managers after (-want +got):\n%s", diff)
	}
	live, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "migrated", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"a": "10"}, live.Data); diff != "" {
		t.Errorf("data after migration (-want +got):\n%s", diff)
	}
	var fields map[string]any
	if err := json.Unmarshal(live.ManagedFields[0].FieldsV1.Raw, &fields); err != nil {
		t.Fatal(err)
	}
	if _, ok := fields["f:metadata"].(map[string]any)["f:labels"]; !ok {
		t.Errorf("roleout/shop does not own the labels: %s", live.ManagedFields[0].FieldsV1.Raw)
	}
	// The next apply, as the app's manager, has nothing to migrate and no
	// conflict, and changes nothing.
	res, err = a.Apply(ctx, []*unstructured.Unstructured{cm("a: '10'")}, opts)
	if err != nil || res[0].Action != Unchanged {
		t.Errorf("next apply: %v %v, want unchanged", err, actions(res))
	}
}
