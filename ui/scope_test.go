package ui

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/status"
)

func TestDeclaredScope(t *testing.T) {
	for _, tc := range []struct {
		name string
		app  config.App
		want Scope
	}{
		{"its namespace", config.App{Namespace: "shop"}, Scope{Namespaces: []string{"shop"}}},
		{"no namespace is default", config.App{}, Scope{Namespaces: []string{"default"}}},
		{"allowed names, not patterns", config.App{Namespace: "shop", AllowedNamespaces: []string{"shop-db", "team-*", "*", "shop"}},
			Scope{Namespaces: []string{"shop", "shop-db"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, declaredScope(tc.app)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestRecordedScope(t *testing.T) {
	cm := func(ns string) object.Ref {
		return object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "x"}
	}
	inv := func(refs ...object.Ref) []model.InventoryEntry {
		var out []model.InventoryEntry
		for _, r := range refs {
			out = append(out, model.InventoryEntry{Ref: r})
		}
		return out
	}
	clusterRole := object.Ref{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "x"}
	namespace := object.Ref{APIVersion: "v1", Kind: "Namespace", Name: "own"}
	for _, tc := range []struct {
		name   string
		read   status.Read
		rec    *status.Records
		parsed bool
		want   Scope
	}{
		{"nothing recorded", status.Read{}, &status.Records{App: "a"}, true, Scope{}},
		{"inventory namespaces", status.Read{}, &status.Records{App: "a", Inventory: inv(cm("b"), cm("a"), cm("b"))}, true,
			Scope{Namespaces: []string{"a", "b"}}},
		{"a Namespace is its own namespace", status.Read{}, &status.Records{App: "a", Inventory: inv(namespace, cm("own"))}, true,
			Scope{Namespaces: []string{"own"}}},
		{"another cluster-scoped object is cluster-wide", status.Read{}, &status.Records{App: "a", Inventory: inv(cm("a"), clusterRole)}, true,
			Scope{Namespaces: []string{"a"}, Cluster: true}},
		{"role revisions count", status.Read{}, &status.Records{App: "a", Inventory: inv(cm("a")), History: map[string][]revision.RoleRevision{
			"web": {{Objects: []map[string]any{{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "s", "namespace": "old"}}}}},
		}}, true, Scope{Namespaces: []string{"a", "old"}}},
		{"unparsed records: the inventory alone", status.Read{Files: map[string][]byte{"a/inventory.yaml": []byte("- {apiVersion: v1, kind: ConfigMap, namespace: b, name: x, role: r, upgradeOrder: 1}\n")}},
			&status.Records{App: "a"}, false, Scope{Namespaces: []string{"b"}}},
		{"an inventory that does not parse is cluster-wide", status.Read{Files: map[string][]byte{"a/inventory.yaml": []byte("{not: a list}")}},
			&status.Records{App: "a"}, false, Scope{Cluster: true}},
		{"a folder that could not be read is cluster-wide", status.Read{Err: errors.New("over its limits")}, &status.Records{App: "a"}, false,
			Scope{Cluster: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, recordedScope(tc.read, tc.rec, tc.parsed)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestScopeChecks(t *testing.T) {
	s := Scope{Namespaces: []string{"b", "a"}}.union(Scope{Namespaces: []string{"a"}, Cluster: true})
	if diff := cmp.Diff([]string{"a", "b", ClusterWide}, s.Checks()); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestScopeOfSnapshots: an app's Scope is its config's and its records';
// a config reload keeps what the records gave until they are read again,
// so the app is shown to no more readers meanwhile.
func TestScopeOfSnapshots(t *testing.T) {
	b := fixture(t)
	b.files[status.InventoryPath("shop")] = mustYAML(t, []model.InventoryEntry{{Ref: object.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop-db", Name: "x"}}})
	store, _ := newTestServer(t, b, "shop")
	if diff := cmp.Diff(Scope{Namespaces: []string{"ns-shop", "shop-db"}}, store.Snapshot().App("shop").Scope); diff != "" {
		t.Errorf("read: (-want +got)\n%s", diff)
	}
	store.SetApps([]config.App{{Name: "shop", Namespace: "shop-web", AllowedNamespaces: []string{"shop-cache"}}})
	if diff := cmp.Diff(Scope{Namespaces: []string{"shop-cache", "shop-db", "shop-web"}}, store.Snapshot().App("shop").Scope); diff != "" {
		t.Errorf("reloaded, not read yet: (-want +got)\n%s", diff)
	}
	b.set("c2", map[string][]byte{status.InventoryPath("shop"): mustYAML(t, []model.InventoryEntry{})})
	store.Refresh(context.Background())
	if diff := cmp.Diff(Scope{Namespaces: []string{"shop-cache", "shop-web"}}, store.Snapshot().App("shop").Scope); diff != "" {
		t.Errorf("read again: (-want +got)\n%s", diff)
	}
}
