package render

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// KindRule allows the objects of one kind of an API group, or of every
// kind of it when Kind is "*". Group "" is the core group.
type KindRule struct {
	Group string
	Kind  string
}

// String is the rule as it is written in the config.
func (r KindRule) String() string {
	return fmt.Sprintf("{group: %s, kind: %s}", yamlScalar(r.Group), yamlScalar(r.Kind))
}

// allows reports whether the rule admits objects of group and kind.
func (r KindRule) allows(group, kind string) bool {
	return r.Group == group && (r.Kind == "*" || r.Kind == kind)
}

// Destinations are where one app's objects may go (docs/design.md,
// "Safety and trust", Destinations): the namespaces its objects may be in
// and the kinds they may be.
type Destinations struct {
	// App names the app in errors.
	App string
	// Namespace is the app's own namespace, always allowed when set.
	Namespace string
	// Namespaces are the allowed namespaces: exact names, or a prefix
	// followed by "*" ("team-*"; "*" alone is every namespace). Nil: the
	// app's Namespace and every Namespace object among the rendered
	// objects.
	Namespaces []string
	// NamespacesField is the config field Namespaces came from
	// (apps[1].allowedNamespaces, defaults.allowedNamespaces), or the one
	// that would set them when Namespaces is nil.
	NamespacesField string
	// Kinds are the allowed kinds, namespaced and cluster-scoped alike.
	// Nil: every namespaced kind (and every kind of unknown scope) and,
	// of the cluster-scoped kinds, Namespace only.
	Kinds []KindRule
	// KindsField is the config field Kinds came from, or the one that
	// would set them when Kinds is nil.
	KindsField string
	// Fix is the config field a user changes to allow more: the app's
	// own field, named in every error.
	NamespacesFix, KindsFix string
}

// CheckDestinations refuses objects that d does not allow, as a whole:
// the error joins one error per offending object, each naming the object,
// the rule it breaks and the config field to change. Run it after
// DefaultNamespace, on every object that is to be applied.
//
// Scope comes from the lookup DefaultNamespace uses (kustomize's built-in
// OpenAPI schema and the CustomResourceDefinitions among objs); a kind of
// unknown scope counts as namespaced, as kubectl takes it. A namespaced
// object must be in an allowed namespace; a Namespace object must name
// one; any other cluster-scoped object has no namespace to check.
func CheckDestinations(objs []*unstructured.Unstructured, d Destinations) error {
	namespaces := d.Namespaces
	declared := d.Namespaces == nil
	if declared {
		namespaces = declaredNamespaces(objs, d.Namespace)
	}
	var errs []error
	eachScope(objs, func(o *unstructured.Unstructured, namespaced, found bool) {
		gvk := o.GroupVersionKind()
		clusterScoped := found && !namespaced
		if err := d.checkKind(gvk.Group, gvk.Kind, clusterScoped); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", Describe(o), err))
			return
		}
		ns := o.GetNamespace()
		isNamespace := clusterScoped && gvk.Group == "" && gvk.Kind == "Namespace"
		switch {
		case isNamespace:
			ns = o.GetName()
		case clusterScoped:
			return
		}
		if ns == d.Namespace && ns != "" || matchNamespace(namespaces, ns) {
			return
		}
		errs = append(errs, fmt.Errorf("%s: %s", Describe(o), d.namespaceRule(ns, namespaces, declared)))
	})
	return errors.Join(errs...)
}

// checkKind returns why the kind is not allowed, or nil.
func (d Destinations) checkKind(group, kind string, clusterScoped bool) error {
	scope, want := "kind", KindRule{Group: group, Kind: kind}
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
		if r.allows(group, kind) {
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
func (d Destinations) namespaceRule(ns string, allowed []string, declared bool) string {
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
// Namespace objects among objs, sorted.
func declaredNamespaces(objs []*unstructured.Unstructured, own string) []string {
	set := map[string]bool{}
	if own != "" {
		set[own] = true
	}
	for _, o := range objs {
		if gvk := o.GroupVersionKind(); gvk.Group == "" && gvk.Kind == "Namespace" {
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

// yamlScalar writes s as a YAML scalar: quoted when empty or "*" (which
// YAML would read as an alias).
func yamlScalar(s string) string {
	if s == "" || s == "*" {
		return `"` + s + `"`
	}
	return s
}
