package diff

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

func obj(kind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name}}}
	if ns != "" {
		u.SetNamespace(ns)
	}
	return u
}

// TestPreviewScope: a preview reads the app's namespace and the
// Namespaces its inventory declares, never cluster-scoped objects nor
// namespaces a pull request adds.
func TestPreviewScope(t *testing.T) {
	inv := []model.InventoryEntry{
		{Ref: object.Ref{APIVersion: "v1", Kind: "Namespace", Name: "team-b"}},
		{Ref: object.Ref{APIVersion: "example.com/v1", Kind: "Namespace", Name: "not-a-namespace"}},
		{Ref: object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "kube-system", Name: "x"}},
	}
	s := PreviewScope("", inv)
	objs := []*unstructured.Unstructured{obj("ConfigMap", "default", "a"), obj("ConfigMap", "team-b", "b"), obj("ConfigMap", "kube-system", "c"),
		obj("ConfigMap", "not-a-namespace", "d"), obj("ClusterRole", "", "god")}
	var got []string
	for _, o := range s.Filter(objs) {
		got = append(got, o.GetNamespace()+"/"+o.GetName())
	}
	if diff := cmp.Diff([]string{"default/a", "team-b/b"}, got); diff != "" {
		t.Errorf("preview scope reads (-want +got):\n%s", diff)
	}
	if n := len(Scope(nil).Filter(objs)); n != len(objs) {
		t.Errorf("the nil scope read %d of %d objects", n, len(objs))
	}
}

// TestReportCounts: steps count their changes into the summary, a role
// added or removed is a change even with no object changed, and
// MarkNotCompared marks every object.
func TestReportCounts(t *testing.T) {
	ref := object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "app", Name: "x"}
	r := &Report{}
	r.addStep(Step{Role: "web", Objects: objects([]model.ObjectDiff{{Object: ref, Change: model.NoChange}, {Object: ref, Change: model.Create}})})
	if !r.Changed || r.Summary != (Counts{Create: 1, Unchanged: 1}) {
		t.Errorf("after a create: changed %v, summary %+v", r.Changed, r.Summary)
	}
	quiet := &Report{}
	quiet.addStep(Step{Role: "db", Objects: objects([]model.ObjectDiff{{Object: ref, Change: model.NoChange}})})
	if quiet.Changed {
		t.Error("a report with nothing to change says it changes something")
	}
	quiet.addStep(Step{Role: "old", Change: RoleRemoved})
	if !quiet.Changed {
		t.Error("a removed role is not a change")
	}
	if n := r.NotCompared(); n != 0 {
		t.Errorf("NotCompared = %d before marking", n)
	}
	if n := r.MarkNotCompared("offline").NotCompared(); n != 2 {
		t.Errorf("NotCompared = %d after marking, want 2", n)
	}
}
