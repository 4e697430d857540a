package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestCheckDestinations checks what an app may render: every refused
// object is named, with the rule it breaks and the field to change; an
// allowed render gives no error.
func TestCheckDestinations(t *testing.T) {
	t.Parallel()
	objects := map[string]string{
		"cm web":          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: web}\n",
		"cm kube-system":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: kube-system}\n",
		"cm team-a":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: team-a}\n",
		"deploy web":      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: web}\n",
		"deploy data":     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: data}\n",
		"ns data":         "apiVersion: v1\nkind: Namespace\nmetadata: {name: data}\n",
		"ns web":          "apiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n",
		"clusterrole":     "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: god}\n",
		"priorityclass":   "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n",
		"crd cluster":     "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gadgets.example.com}\nspec: {group: example.com, scope: Cluster, names: {kind: Gadget}}\n",
		"gadget":          "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n",
		"unknown web":     "apiVersion: other.example.com/v1\nkind: Thing\nmetadata: {name: t, namespace: web}\n",
		"unknown default": "apiVersion: other.example.com/v1\nkind: Thing\nmetadata: {name: t, namespace: default}\n",
	}
	app := func(d Destinations) Destinations {
		d.App, d.NamespacesField, d.NamespacesFix = "web", "apps[1].allowedNamespaces", "apps[1].allowedNamespaces"
		d.KindsField, d.KindsFix = "apps[1].allowedKinds", "apps[1].allowedKinds"
		return d
	}
	cases := []struct {
		name string
		objs []string
		d    Destinations
		want []string // one error line per refused object
	}{
		{"defaults: own namespace and declared ones", []string{"ns data", "deploy data", "cm web", "unknown web"},
			app(Destinations{Namespace: "web"}), nil},
		{"defaults: an undeclared namespace", []string{"cm web", "cm kube-system"}, app(Destinations{Namespace: "web"}), []string{
			"ConfigMap/kube-system/x: namespace kube-system is not allowed for app web (apps[1].allowedNamespaces unset: the app's namespace and the Namespaces it declares, [web]); " +
				"declare the Namespace in the app, or list it with the app's other namespaces in apps[1].allowedNamespaces, to allow it"}},
		{"defaults: a kind of unknown scope is namespaced", []string{"unknown default"}, app(Destinations{Namespace: "web"}), []string{
			"Thing/default/t: namespace default is not allowed for app web (apps[1].allowedNamespaces unset: the app's namespace and the Namespaces it declares, [web]); " +
				"declare the Namespace in the app, or list it with the app's other namespaces in apps[1].allowedNamespaces, to allow it"}},
		{"explicit namespaces", []string{"cm web", "cm kube-system", "ns data", "deploy data"},
			app(Destinations{Namespace: "web", Namespaces: []string{"web"}}), []string{
				"ConfigMap/kube-system/x: namespace kube-system is not allowed for app web (apps[1].allowedNamespaces: [web]); add it to apps[1].allowedNamespaces to allow it",
				"Namespace/data: namespace data is not allowed for app web (apps[1].allowedNamespaces: [web]); add it to apps[1].allowedNamespaces to allow it",
				"Deployment/data/d: namespace data is not allowed for app web (apps[1].allowedNamespaces: [web]); add it to apps[1].allowedNamespaces to allow it"}},
		{"the app's namespace is always allowed", []string{"cm web", "ns web"}, app(Destinations{Namespace: "web", Namespaces: []string{"other"}}), nil},
		{"a trailing glob", []string{"cm team-a", "cm kube-system"}, app(Destinations{Namespaces: []string{"team-*"}}), []string{
			"ConfigMap/kube-system/x: namespace kube-system is not allowed for app web (apps[1].allowedNamespaces: [team-*]); add it to apps[1].allowedNamespaces to allow it"}},
		{"every namespace", []string{"cm team-a", "cm kube-system"}, app(Destinations{Namespaces: []string{"*"}}), nil},
		{"defaults: cluster-scoped kinds other than Namespace", []string{"ns web", "clusterrole", "priorityclass", "crd cluster", "gadget"},
			app(Destinations{Namespace: "web"}), []string{
				`ClusterRole/god: cluster-scoped kind ClusterRole.rbac.authorization.k8s.io is not allowed for app web (apps[1].allowedKinds unset: every namespaced kind, and Namespace); ` +
					`to allow it, set apps[1].allowedKinds to the kinds the app uses, {group: rbac.authorization.k8s.io, kind: ClusterRole} among them (a list allows only what it names)`,
				`PriorityClass/high: cluster-scoped kind PriorityClass.scheduling.k8s.io is not allowed for app web (apps[1].allowedKinds unset: every namespaced kind, and Namespace); ` +
					`to allow it, set apps[1].allowedKinds to the kinds the app uses, {group: scheduling.k8s.io, kind: PriorityClass} among them (a list allows only what it names)`,
				`CustomResourceDefinition/gadgets.example.com: cluster-scoped kind CustomResourceDefinition.apiextensions.k8s.io is not allowed for app web (apps[1].allowedKinds unset: every namespaced kind, and Namespace); ` +
					`to allow it, set apps[1].allowedKinds to the kinds the app uses, {group: apiextensions.k8s.io, kind: CustomResourceDefinition} among them (a list allows only what it names)`,
				`Gadget/g: cluster-scoped kind Gadget.example.com is not allowed for app web (apps[1].allowedKinds unset: every namespaced kind, and Namespace); ` +
					`to allow it, set apps[1].allowedKinds to the kinds the app uses, {group: example.com, kind: Gadget} among them (a list allows only what it names)`}},
		{"explicit kinds: listed, group wildcard, cluster-scoped listed", []string{"deploy web", "cm web", "clusterrole", "crd cluster", "gadget"},
			app(Destinations{Namespace: "web", Kinds: []KindRule{{"apps", "*"}, {"", "ConfigMap"}, {"rbac.authorization.k8s.io", "ClusterRole"},
				{"apiextensions.k8s.io", "CustomResourceDefinition"}, {"example.com", "*"}}}), nil},
		{"explicit kinds: what is not listed", []string{"deploy web", "cm web", "ns web", "unknown web"},
			app(Destinations{Namespace: "web", Kinds: []KindRule{{"apps", "*"}}}), []string{
				`ConfigMap/web/x: kind ConfigMap is not allowed for app web (apps[1].allowedKinds: [{group: apps, kind: "*"}]); add {group: "", kind: ConfigMap} to apps[1].allowedKinds to allow it`,
				`Namespace/web: cluster-scoped kind Namespace is not allowed for app web (apps[1].allowedKinds: [{group: apps, kind: "*"}]); add {group: "", kind: Namespace} to apps[1].allowedKinds to allow it`,
				`Thing/web/t: kind Thing.other.example.com is not allowed for app web (apps[1].allowedKinds: [{group: apps, kind: "*"}]); add {group: other.example.com, kind: Thing} to apps[1].allowedKinds to allow it`}},
		{"from the agent's defaults", []string{"cm kube-system"}, Destinations{App: "web", Namespace: "web", Namespaces: []string{"shared"},
			NamespacesField: "defaults.allowedNamespaces", NamespacesFix: "apps[0].allowedNamespaces"}, []string{
			"ConfigMap/kube-system/x: namespace kube-system is not allowed for app web (defaults.allowedNamespaces: [shared], and the app's namespace web); add it to apps[0].allowedNamespaces to allow it"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var objs []*unstructured.Unstructured
			for _, name := range tc.objs {
				objs = append(objs, obj(t, objects[name]))
			}
			var got []string
			if err := CheckDestinations(objs, tc.d); err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
