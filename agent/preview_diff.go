package agent

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render"
)

// OutsideAppNamespaces is the ObjectDiff.NotCompared of an object a
// preview did not compare with the cluster: it is cluster-scoped or in a
// namespace that is not the app's.
const OutsideAppNamespaces = "outside the app's namespaces"

// namespaceScope is the part of a cluster a diff may read: namespaced
// objects in the namespaces it holds. The nil scope reads everything.
type namespaceScope map[string]bool

// previewScope is what a preview of app may read of the cluster
// (docs/design.md, "Safety and trust", Previews): namespaced objects in
// the app's namespace and in the Namespaces its last applied inventory
// declares. What a pull request adds elsewhere, cluster-scoped objects
// included, is never read.
func previewScope(app config.App, prev *previous) namespaceScope {
	ns := app.Namespace
	if ns == "" {
		ns = "default"
	}
	s := namespaceScope{ns: true}
	if prev != nil {
		for _, e := range prev.inventory {
			if e.Kind == "Namespace" && e.APIVersion == "v1" {
				s[e.Name] = true
			}
		}
	}
	return s
}

// reads reports whether the scope reads objects in namespace ("" for a
// cluster-scoped object).
func (s namespaceScope) reads(namespace string) bool {
	return s == nil || (namespace != "" && s[namespace])
}

// filter returns the objects of objs the scope reads.
func (s namespaceScope) filter(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	if s == nil {
		return objs
	}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if s.reads(o.GetNamespace()) {
			out = append(out, o)
		}
	}
	return out
}

// diffPreview compares a pull request's plan with the app's cluster by
// server-side dry run, reading only inside the app's namespaces
// (previewScope); every other object is compared with the last status in
// git and says so.
func diffPreview(ctx context.Context, cluster ClusterReader, app config.App, plan *render.Plan, prev *previous) (*DiffReport, error) {
	return liveDiff{cluster: cluster, app: app, plan: plan, scope: previewScope(app, prev), prev: prev}.report(ctx)
}

// offlineStep returns how an object of a step (role names a role, ""
// the prerequisite step) that the diff may not read is compared with the
// last status in git: a role's object with the role's applied revision, as
// diffOffline does; a prerequisite, whose content the status does not
// record, by the step's hash and the inventory (prerequisiteDiff).
func (d liveDiff) offlineStep(role string) func(*unstructured.Unstructured) apply.ObjectDiff {
	if role != "" {
		recorded := recordedObjects(d.prev, role)
		return func(o *unstructured.Unstructured) apply.ObjectDiff { return offlineDiff(o, recorded, d.plan.Masker) }
	}
	diff, _ := prerequisiteDiff(d.plan, d.prev)
	return diff
}

// offlineDelete is the deletion of an inventory entry that left git, with
// the content its role's applied revision records.
func (d liveDiff) offlineDelete(e render.InventoryEntry) apply.ObjectDiff {
	return deleteDiff(e.Ref, recordedObjects(d.prev, e.Role)[refKey(e.Ref)])
}

// refKey is the key (group, kind, namespace, name) of the object ref
// names, as key gives it for an object.
func refKey(ref object.Ref) string {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(ref.APIVersion)
	u.SetKind(ref.Kind)
	u.SetNamespace(ref.Namespace)
	u.SetName(ref.Name)
	return key(u.Object)
}
