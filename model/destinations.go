package model

import (
	"fmt"
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

// yamlScalar writes s as a YAML scalar: quoted when empty or "*" (which
// YAML would read as an alias).
func yamlScalar(s string) string {
	if s == "" || s == "*" {
		return `"` + s + `"`
	}
	return s
}
