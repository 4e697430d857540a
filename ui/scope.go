package ui

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/status"
)

// Scope is where an app writes, and so what a reader must be allowed to
// read to see it (docs/design.md, "The web view", Access): every one of
// Namespaces, and, when Cluster is set, the whole cluster.
type Scope struct {
	// Namespaces are sorted and distinct.
	Namespaces []string
	// Cluster says the app writes cluster-scoped objects other than
	// Namespaces (a Namespace object counts as its own namespace), or
	// that what it wrote could not be read.
	Cluster bool
}

// declaredScope is where the config says app writes: its namespace (or
// default, where its objects that name none go) and the names in its own
// allowedNamespaces. A pattern ("team-*", "*") names no namespace to ask
// about: what the app wrote under it is in its inventory.
// defaults.allowedNamespaces, a rule every app shares, is left out for
// the same reason.
func declaredScope(a config.App) Scope {
	ns := []string{a.NamespaceOrDefault()}
	for _, n := range a.AllowedNamespaces {
		if !strings.Contains(n, "*") {
			ns = append(ns, n)
		}
	}
	return Scope{Namespaces: ns}.normal()
}

// writtenScope is where refs, the objects an app's records hold, are:
// the namespace of each namespaced one, the name of each Namespace, and
// Cluster for any other cluster-scoped one (its namespace is empty: the
// render clears it, docs/design.md "Safety and trust").
func writtenScope(refs []object.Ref) Scope {
	var s Scope
	for _, r := range refs {
		switch {
		case r.Namespace != "":
			s.Namespaces = append(s.Namespaces, r.Namespace)
		case r.Kind == "Namespace" && r.APIVersion == "v1":
			s.Namespaces = append(s.Namespaces, r.Name)
		default:
			s.Cluster = true
		}
	}
	return s.normal()
}

// recordedScope is where an app's records say it wrote: the objects of
// its inventory and of every recorded role revision (the view shows
// them). When they could not be read (rec is the partial read of a
// folder Parse refused), what the inventory holds is read on its own;
// a folder over its limits or an inventory that does not parse is
// Cluster: only a reader of everything sees what is not known.
func recordedScope(read status.Read, rec *status.Records, parsed bool) Scope {
	if read.Err != nil {
		return Scope{Cluster: true}
	}
	var refs []object.Ref
	if parsed {
		for _, e := range rec.Inventory {
			refs = append(refs, e.Ref)
		}
	} else if data, ok := read.Files[status.InventoryPath(rec.App)]; ok {
		if err := yaml.Unmarshal(data, &refs); err != nil {
			return Scope{Cluster: true}
		}
	}
	for _, revs := range rec.History {
		refs = append(refs, revisionRefs(revs)...)
	}
	return writtenScope(refs)
}

// revisionRefs returns the refs of the objects of revs.
func revisionRefs(revs []revision.RoleRevision) []object.Ref {
	var out []object.Ref
	for _, r := range revs {
		for _, o := range r.Objects {
			out = append(out, object.RefOf(&unstructured.Unstructured{Object: o}))
		}
	}
	return out
}

// union is where s or o writes.
func (s Scope) union(o Scope) Scope {
	return Scope{Namespaces: append(slices.Clone(s.Namespaces), o.Namespaces...), Cluster: s.Cluster || o.Cluster}.normal()
}

// equal reports whether s and o are the same scope.
func (s Scope) equal(o Scope) bool {
	return s.Cluster == o.Cluster && slices.Equal(s.Namespaces, o.Namespaces)
}

// normal sorts the namespaces and drops repeats.
func (s Scope) normal() Scope {
	slices.Sort(s.Namespaces)
	s.Namespaces = slices.Compact(s.Namespaces)
	return s
}

// Checks are the namespaces an Authorizer's CanRead is asked, each of
// which a reader must be allowed to see the app: the Namespaces, then
// ClusterWide when Cluster is set.
func (s Scope) Checks() []string {
	out := slices.Clone(s.Namespaces)
	if s.Cluster {
		out = append(out, ClusterWide)
	}
	return out
}
