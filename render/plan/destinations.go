package plan

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/model"
	rschema "github.com/roleout/roleout/render/schema"
)

// allows reports whether the rule admits objects of group and kind.
func allows(r model.KindRule, group, kind string) bool {
	return r.Group == group && (r.Kind == "*" || r.Kind == kind)
}

// reserved reports whether o is one of the agent's objects.
func reserved(a model.AgentObjects, o *unstructured.Unstructured) bool {
	if a.Namespace == "" || o.GetNamespace() != a.Namespace {
		return false
	}
	gvk := o.GroupVersionKind()
	for _, r := range a.Objects {
		if r.Group == gvk.Group && r.Kind == gvk.Kind && (r.Name == "" || r.Name == o.GetName()) {
			return true
		}
	}
	return false
}

// CheckDestinations refuses objects that d does not allow, as a whole:
// the error joins one error per offending object, each naming the object,
// the rule it breaks and the config field to change. Run it after
// DefaultNamespace, with the same scopes (KindScopes), on every object
// that is to be applied.
//
// An object of a kind of unknown scope is refused: neither the cluster
// nor Kubernetes nor a CRD of the render defines the kind. A namespaced
// object must be in an allowed namespace; a Namespace object must name
// one; any other cluster-scoped object has no namespace to check, and its
// kind must be listed. The agent's own objects are never allowed.
func CheckDestinations(objs []*unstructured.Unstructured, d model.Destinations, scopes Scopes) error {
	namespaces := d.Namespaces
	declared := d.Namespaces == nil
	if declared {
		namespaces = declaredNamespaces(d, objs)
	}
	var errs []error
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		namespaced, known := scopes[gvk.GroupKind()]
		if !known {
			errs = append(errs, unknownScope(d, o))
			continue
		}
		if err := checkKind(d, gvk.Group, gvk.Kind, !namespaced); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", Describe(o), err))
			continue
		}
		if reserved(d.Agent, o) {
			errs = append(errs, fmt.Errorf("%s: is one of the agent's own objects in its namespace %s, which no app may write", Describe(o), d.Agent.Namespace))
			continue
		}
		ns := o.GetNamespace()
		switch {
		case !namespaced && gvk.Group == "" && gvk.Kind == "Namespace":
			ns = o.GetName()
		case !namespaced:
			continue
		}
		if err := namespaceAllowed(d, ns, namespaces, declared); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", Describe(o), err))
		}
	}
	return errors.Join(errs...)
}

// unknownScope is the error of an object whose kind's scope nothing knows.
func unknownScope(d model.Destinations, o *unstructured.Unstructured) error {
	gvk := o.GroupVersionKind()
	if d.Offline {
		return fmt.Errorf("%s: kind %s is of unknown scope for app %s offline: neither Kubernetes %s nor a CustomResourceDefinition "+
			"in the render defines it, and no cluster was asked; roleout diff asks the app's cluster, or add the CustomResourceDefinition to the app",
			Describe(o), groupKind(gvk.Group, gvk.Kind), d.App, rschema.KubernetesVersion)
	}
	return fmt.Errorf("%s: kind %s is of unknown scope for app %s: neither the cluster, nor Kubernetes %s, nor a "+
		"CustomResourceDefinition in the render defines it, so roleout cannot tell where the object would go; install its "+
		"CustomResourceDefinition (or add it to the app), or check the apiVersion and kind", Describe(o), groupKind(gvk.Group, gvk.Kind), d.App, rschema.KubernetesVersion)
}

// namespaceAllowed returns why ns is not a destination, or nil.
func namespaceAllowed(d model.Destinations, ns string, namespaces []string, declared bool) error {
	if ns != "" && ns == d.Agent.Namespace && ns != d.Namespace && !slices.Contains(d.Namespaces, ns) {
		return fmt.Errorf("namespace %s is the agent's own and not allowed for app %s unless the config names it: "+
			"set it as the app's namespace or list it, by name, in %s", ns, d.App, d.NamespacesFix)
	}
	if ns == d.Namespace && ns != "" || matchNamespace(namespaces, ns) {
		return nil
	}
	if owner, exists := d.NamespaceOwners[ns]; declared && exists && owner != d.App {
		who := "exists without roleout's ownership"
		if owner != "" {
			who = "is owned by app " + owner
		}
		return fmt.Errorf("namespace %s %s: declaring it does not make it a destination of app %s; list it in %s to allow it",
			ns, who, d.App, d.NamespacesFix)
	}
	return errors.New(namespaceRule(d, ns, namespaces, declared))
}

// checkKind returns why the kind is not allowed, or nil.
func checkKind(d model.Destinations, group, kind string, clusterScoped bool) error {
	scope, want := "kind", model.KindRule{Group: group, Kind: kind}
	if clusterScoped {
		scope = "cluster-scoped kind"
	}
	if d.Kinds == nil {
		if !clusterScoped || (group == "" && kind == "Namespace") {
			return nil
		}
		return fmt.Errorf("%s %s is not allowed for app %s (%s unset: every namespaced kind, and Namespace); "+
			"to allow it, set %s to the kinds the app uses, %s among them (a list allows only what it names)",
			scope, groupKind(group, kind), d.App, d.KindsField, d.KindsFix, want)
	}
	for _, r := range d.Kinds {
		if allows(r, group, kind) {
			return nil
		}
	}
	rules := make([]string, len(d.Kinds))
	for i, r := range d.Kinds {
		rules[i] = r.String()
	}
	return fmt.Errorf("%s %s is not allowed for app %s (%s: [%s]); add %s to %s to allow it",
		scope, groupKind(group, kind), d.App, d.KindsField, strings.Join(rules, ", "), want, d.KindsFix)
}

// namespaceRule says why namespace ns is refused and what to change.
func namespaceRule(d model.Destinations, ns string, allowed []string, declared bool) string {
	if ns == "" {
		ns = `""`
	}
	list := "[" + strings.Join(allowed, ", ") + "]"
	if declared {
		return fmt.Sprintf("namespace %s is not allowed for app %s (%s unset: the app's namespace and the Namespaces it declares, %s); "+
			"declare the Namespace in the app, or list it with the app's other namespaces in %s, to allow it",
			ns, d.App, d.NamespacesField, list, d.NamespacesFix)
	}
	also := ""
	if d.Namespace != "" && !slices.Contains(allowed, d.Namespace) {
		also = ", and the app's namespace " + d.Namespace
	}
	return fmt.Sprintf("namespace %s is not allowed for app %s (%s: %s%s); add it to %s to allow it",
		ns, d.App, d.NamespacesField, list, also, d.NamespacesFix)
}

// declaredNamespaces returns the app's namespace and the names of the
// Namespace objects among objs, sorted, but for those that exist and are
// not the app's (NamespaceOwners).
func declaredNamespaces(d model.Destinations, objs []*unstructured.Unstructured) []string {
	set := map[string]bool{}
	if d.Namespace != "" {
		set[d.Namespace] = true
	}
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if gvk.Group != "" || gvk.Kind != "Namespace" {
			continue
		}
		if owner, exists := d.NamespaceOwners[o.GetName()]; !exists || owner == d.App {
			set[o.GetName()] = true
		}
	}
	out := make([]string, 0, len(set))
	for ns := range set {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

// matchNamespace reports whether ns is one of patterns: an exact name, or
// a prefix followed by "*".
func matchNamespace(patterns []string, ns string) bool {
	if ns == "" {
		return false
	}
	for _, p := range patterns {
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(ns, prefix) || p == ns {
			return true
		}
	}
	return false
}

// groupKind names a kind with its group, as kubectl does: Kind.group, or
// Kind for the core group.
func groupKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}
