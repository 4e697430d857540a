package render

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	rschema "github.com/roleout/roleout/render/schema"
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
	// objects that does not exist or is the app's (NamespaceOwners).
	Namespaces []string
	// NamespacesField is the config field Namespaces came from
	// (apps[1].allowedNamespaces, defaults.allowedNamespaces), or the one
	// that would set them when Namespaces is nil.
	NamespacesField string
	// Kinds are the allowed kinds, namespaced and cluster-scoped alike.
	// Nil: every namespaced kind and, of the cluster-scoped kinds,
	// Namespace only.
	Kinds []KindRule
	// KindsField is the config field Kinds came from, or the one that
	// would set them when Kinds is nil.
	KindsField string
	// Fix is the config field a user changes to allow more: the app's
	// own field, named in every error.
	NamespacesFix, KindsFix string
	// Agent is where the agent keeps its own objects; none of them is
	// ever a destination, and its namespace only when the config names
	// it as the app's namespace or in Namespaces, exactly.
	Agent AgentObjects
	// Offline says no cluster was asked for scopes: errors then say so.
	Offline bool
	// NamespaceOwners holds, for each Namespace the render declares that
	// exists in the cluster, the value of its ownership label ("" for
	// none). With Namespaces nil, a declared Namespace that exists and is
	// not the app's (owner other than App) is not a destination: a
	// render cannot declare its way into another's namespace.
	NamespaceOwners map[string]string
}

// AgentObjects are the agent's own objects: its namespace, and the kinds
// and names in it an app may never write (the control ConfigMap, the
// mask key Secret, the leader Lease, the role revisions).
type AgentObjects struct {
	Namespace string
	// Objects are the reserved objects of Namespace; an empty Name
	// reserves every object of the kind there.
	Objects []ReservedObject
}

// ReservedObject is one agent object, or every object of a kind when
// Name is empty.
type ReservedObject struct{ Group, Kind, Name string }

// reserved reports whether o is one of the agent's objects.
func (a AgentObjects) reserved(o *unstructured.Unstructured) bool {
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
func CheckDestinations(objs []*unstructured.Unstructured, d Destinations, scopes Scopes) error {
	namespaces := d.Namespaces
	declared := d.Namespaces == nil
	if declared {
		namespaces = d.declaredNamespaces(objs)
	}
	var errs []error
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		namespaced, known := scopes[gvk.GroupKind()]
		if !known {
			errs = append(errs, d.unknownScope(o))
			continue
		}
		if err := d.checkKind(gvk.Group, gvk.Kind, !namespaced); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", Describe(o), err))
			continue
		}
		if d.Agent.reserved(o) {
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
		if err := d.namespaceAllowed(ns, namespaces, declared); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", Describe(o), err))
		}
	}
	return errors.Join(errs...)
}

// unknownScope is the error of an object whose kind's scope nothing knows.
func (d Destinations) unknownScope(o *unstructured.Unstructured) error {
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
func (d Destinations) namespaceAllowed(ns string, namespaces []string, declared bool) error {
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
	return errors.New(d.namespaceRule(ns, namespaces, declared))
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
// Namespace objects among objs, sorted, but for those that exist and are
// not the app's (NamespaceOwners).
func (d Destinations) declaredNamespaces(objs []*unstructured.Unstructured) []string {
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

// yamlScalar writes s as a YAML scalar: quoted when empty or "*" (which
// YAML would read as an alias).
func yamlScalar(s string) string {
	if s == "" || s == "*" {
		return `"` + s + `"`
	}
	return s
}
