package plan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/model"
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
		"cluster thing":   "apiVersion: other.example.com/v1\nkind: Thing\nmetadata: {name: t}\n",
		"mutating policy": "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p}\n",
		"ns agent":        "apiVersion: v1\nkind: Namespace\nmetadata: {name: roleout-system}\n",
		"cm agent":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: roleout-system}\n",
		"cm control":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: roleout-control, namespace: roleout-system}\n",
	}
	app := func(d model.Destinations) model.Destinations {
		d.App, d.NamespacesField, d.NamespacesFix = "web", "apps[1].allowedNamespaces", "apps[1].allowedNamespaces"
		d.KindsField, d.KindsFix = "apps[1].allowedKinds", "apps[1].allowedKinds"
		return d
	}
	cases := []struct {
		name string
		objs []string
		d    model.Destinations
		want []string // one error line per refused object
	}{
		{"defaults: own namespace and declared ones", []string{"ns data", "deploy data", "cm web"},
			app(model.Destinations{Namespace: "web"}), nil},
		{"defaults: an undeclared namespace", []string{"cm web", "cm kube-system"}, app(model.Destinations{Namespace: "web"}), []string{
			"ConfigMap/kube-system/x: namespace kube-system is not allowed for app web (apps[1].allowedNamespaces unset: the app's namespace and the Namespaces it declares, [web]); " +
				"declare the Namespace in the app, or list it with the app's other namespaces in apps[1].allowedNamespaces, to allow it"}},
		{"a kind of unknown scope is refused", []string{"unknown web"}, app(model.Destinations{Namespace: "web", Namespaces: []string{"*"}}), []string{
			"Thing/web/t: kind Thing.other.example.com is of unknown scope for app web: neither the cluster, nor Kubernetes v1.37.2, nor a " +
				"CustomResourceDefinition in the render defines it, so roleout cannot tell where the object would go; install its " +
				"CustomResourceDefinition (or add it to the app), or check the apiVersion and kind"}},
		{"a kind the cluster knows is cluster-scoped", []string{"cluster thing"}, app(model.Destinations{Namespace: "web"}), []string{
			`Thing/t: cluster-scoped kind Thing.other.example.com is not allowed for app web (apps[1].allowedKinds unset: every namespaced kind, and Namespace); ` +
				`to allow it, set apps[1].allowedKinds to the kinds the app uses, {group: other.example.com, kind: Thing} among them (a list allows only what it names)`}},
		{"a Kubernetes kind kustomize does not know", []string{"mutating policy"}, app(model.Destinations{Namespace: "web"}), []string{
			`MutatingAdmissionPolicy/p: cluster-scoped kind MutatingAdmissionPolicy.admissionregistration.k8s.io is not allowed for app web (apps[1].allowedKinds unset: every namespaced kind, and Namespace); ` +
				`to allow it, set apps[1].allowedKinds to the kinds the app uses, {group: admissionregistration.k8s.io, kind: MutatingAdmissionPolicy} among them (a list allows only what it names)`}},
		{"the agent's namespace, declared or matched by a pattern", []string{"ns agent", "cm agent"}, app(model.Destinations{Namespace: "web", Namespaces: []string{"roleout-*"},
			Agent: model.AgentObjects{Namespace: "roleout-system"}}), []string{
			"Namespace/roleout-system: namespace roleout-system is the agent's own and not allowed for app web unless the config names it: set it as the app's namespace or list it, by name, in apps[1].allowedNamespaces",
			"ConfigMap/roleout-system/x: namespace roleout-system is the agent's own and not allowed for app web unless the config names it: set it as the app's namespace or list it, by name, in apps[1].allowedNamespaces"}},
		{"the agent's objects, even where the app may write", []string{"cm agent", "cm control"}, app(model.Destinations{Namespace: "roleout-system",
			Agent: model.AgentObjects{Namespace: "roleout-system", Objects: []model.ReservedObject{{Kind: "ConfigMap", Name: "roleout-control"}}}}), []string{
			"ConfigMap/roleout-system/roleout-control: is one of the agent's own objects in its namespace roleout-system, which no app may write"}},
		{"a declared Namespace that exists and is not the app's", []string{"ns data", "deploy data", "ns web"}, app(model.Destinations{Namespace: "web",
			NamespaceOwners: map[string]string{"data": "", "web": "other"}}), []string{
			"Namespace/data: namespace data exists without roleout's ownership: declaring it does not make it a destination of app web; list it in apps[1].allowedNamespaces to allow it",
			"Deployment/data/d: namespace data exists without roleout's ownership: declaring it does not make it a destination of app web; list it in apps[1].allowedNamespaces to allow it"}},
		{"a declared Namespace the app owns", []string{"ns data", "deploy data"}, app(model.Destinations{Namespace: "web", NamespaceOwners: map[string]string{"data": "web"}}), nil},
		{"explicit namespaces", []string{"cm web", "cm kube-system", "ns data", "deploy data"},
			app(model.Destinations{Namespace: "web", Namespaces: []string{"web"}}), []string{
				"ConfigMap/kube-system/x: namespace kube-system is not allowed for app web (apps[1].allowedNamespaces: [web]); add it to apps[1].allowedNamespaces to allow it",
				"Namespace/data: namespace data is not allowed for app web (apps[1].allowedNamespaces: [web]); add it to apps[1].allowedNamespaces to allow it",
				"Deployment/data/d: namespace data is not allowed for app web (apps[1].allowedNamespaces: [web]); add it to apps[1].allowedNamespaces to allow it"}},
		{"the app's namespace is always allowed", []string{"cm web", "ns web"}, app(model.Destinations{Namespace: "web", Namespaces: []string{"other"}}), nil},
		{"a trailing glob", []string{"cm team-a", "cm kube-system"}, app(model.Destinations{Namespaces: []string{"team-*"}}), []string{
			"ConfigMap/kube-system/x: namespace kube-system is not allowed for app web (apps[1].allowedNamespaces: [team-*]); add it to apps[1].allowedNamespaces to allow it"}},
		{"every namespace", []string{"cm team-a", "cm kube-system"}, app(model.Destinations{Namespaces: []string{"*"}}), nil},
		{"defaults: cluster-scoped kinds other than Namespace", []string{"ns web", "clusterrole", "priorityclass", "crd cluster", "gadget"},
			app(model.Destinations{Namespace: "web"}), []string{
				`ClusterRole/god: cluster-scoped kind ClusterRole.rbac.authorization.k8s.io is not allowed for app web (apps[1].allowedKinds unset: every namespaced kind, and Namespace); ` +
					`to allow it, set apps[1].allowedKinds to the kinds the app uses, {group: rbac.authorization.k8s.io, kind: ClusterRole} among them (a list allows only what it names)`,
				`PriorityClass/high: cluster-scoped kind PriorityClass.scheduling.k8s.io is not allowed for app web (apps[1].allowedKinds unset: every namespaced kind, and Namespace); ` +
					`to allow it, set apps[1].allowedKinds to the kinds the app uses, {group: scheduling.k8s.io, kind: PriorityClass} among them (a list allows only what it names)`,
				`CustomResourceDefinition/gadgets.example.com: cluster-scoped kind CustomResourceDefinition.apiextensions.k8s.io is not allowed for app web (apps[1].allowedKinds unset: every namespaced kind, and Namespace); ` +
					`to allow it, set apps[1].allowedKinds to the kinds the app uses, {group: apiextensions.k8s.io, kind: CustomResourceDefinition} among them (a list allows only what it names)`,
				`Gadget/g: cluster-scoped kind Gadget.example.com is not allowed for app web (apps[1].allowedKinds unset: every namespaced kind, and Namespace); ` +
					`to allow it, set apps[1].allowedKinds to the kinds the app uses, {group: example.com, kind: Gadget} among them (a list allows only what it names)`}},
		{"explicit kinds: listed, group wildcard, cluster-scoped listed", []string{"deploy web", "cm web", "clusterrole", "crd cluster", "gadget"},
			app(model.Destinations{Namespace: "web", Kinds: []model.KindRule{{Group: "apps", Kind: "*"}, {Group: "", Kind: "ConfigMap"}, {Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"},
				{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, {Group: "example.com", Kind: "*"}}}), nil},
		{"explicit kinds: what is not listed", []string{"deploy web", "cm web", "ns web"},
			app(model.Destinations{Namespace: "web", Kinds: []model.KindRule{{Group: "apps", Kind: "*"}}}), []string{
				`ConfigMap/web/x: kind ConfigMap is not allowed for app web (apps[1].allowedKinds: [{group: apps, kind: "*"}]); add {group: "", kind: ConfigMap} to apps[1].allowedKinds to allow it`,
				`Namespace/web: cluster-scoped kind Namespace is not allowed for app web (apps[1].allowedKinds: [{group: apps, kind: "*"}]); add {group: "", kind: Namespace} to apps[1].allowedKinds to allow it`}},
		{"from the agent's defaults", []string{"cm kube-system"}, model.Destinations{App: "web", Namespace: "web", Namespaces: []string{"shared"},
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
			live := Scopes{{Group: "other.example.com", Kind: "Thing"}: false}
			if tc.objs[0] == "unknown web" {
				live = nil
			}
			if err := CheckDestinations(objs, tc.d, KindScopes(objs, live)); err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
