package schema

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
)

// scopesFile is the scope of every kind Kubernetes KubernetesVersion
// serves, one "group kind Namespaced|Cluster" line each ("" is written
// "core"): read from the discovery documents of the k8s.io/kubernetes
// module roleout links (api/discovery/api__v1.json and
// apis__<group>__<version>.json). TestBuiltinScopesAreTheModule compares
// it with them; to refresh it after an upgrade:
//
//	go test ./render/schema -run TestBuiltinScopesAreTheModule -update-scopes
//
//go:embed scopes.txt
var scopesFile string

// builtinScopes is scopesFile parsed, once.
var builtinScopes = sync.OnceValue(func() map[runtimeschema.GroupKind]bool {
	out, err := ParseScopes(scopesFile)
	if err != nil {
		// TestBuiltinScopesAreTheModule reads it; were it unreadable, no
		// kind would be known offline, and every object would be refused.
		return nil
	}
	return out
})

// wellKnownFile is the scope of kinds of widely installed CRDs whose
// schemas roleout does not carry (Flux, OLM, cert-manager, the
// Prometheus operator, Gateway API, External Secrets, Argo CD, Istio,
// ...), in scopesFile's format: the scope a kind's CRD declares, which
// its project publishes and never changes within a group. It lets an
// offline plan place their objects (WellKnownScope); a cluster's
// discovery and a render's CRDs win over it, and their objects stay
// unchecked without a schema.
//
//go:embed wellknown.txt
var wellKnownFile string

var wellKnownScopes = sync.OnceValue(func() map[runtimeschema.GroupKind]bool {
	out, err := ParseScopes(wellKnownFile)
	if err != nil {
		return nil // TestWellKnownScopes reads it
	}
	return out
})

// WellKnownScope reports whether kind gk, of a widely installed CRD
// roleout carries no schema for (wellknown.txt), is namespaced, and
// whether it is such a kind.
func WellKnownScope(gk runtimeschema.GroupKind) (namespaced, known bool) {
	namespaced, known = wellKnownScopes()[gk]
	return namespaced, known
}

// crdScopes are the scopes of the kinds of the CRDs built in
// (BuiltinCRDs), read when a kind is not Kubernetes' own.
var crdScopes = sync.OnceValue(func() map[runtimeschema.GroupKind]bool {
	out := map[runtimeschema.GroupKind]bool{}
	crds, _ := BuiltinCRDs() // TestBuiltinCRDsAreTheModules decodes them
	for _, crd := range crds {
		if gk, namespaced, ok := CRDScope(crd); ok {
			out[gk] = namespaced
		}
	}
	return out
})

// CRDScope returns the kind a CustomResourceDefinition serves and
// whether it is namespaced; ok is false for any other object or a CRD
// whose scope is neither Namespaced nor Cluster.
func CRDScope(o *unstructured.Unstructured) (gk runtimeschema.GroupKind, namespaced, ok bool) {
	if o.GetKind() != "CustomResourceDefinition" || !strings.HasPrefix(o.GetAPIVersion(), "apiextensions.k8s.io/") {
		return gk, false, false
	}
	group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
	scope, _, _ := unstructured.NestedString(o.Object, "spec", "scope")
	gk = runtimeschema.GroupKind{Group: group, Kind: kind}
	return gk, scope == "Namespaced", scope == "Namespaced" || scope == "Cluster"
}

// BuiltinScope reports whether kind gk is namespaced, and whether roleout
// knows it offline, without a cluster to ask: a kind Kubernetes
// KubernetesVersion serves, or the kind of a CRD built in (BuiltinCRDs:
// the custom workloads whose controllers roleout links).
func BuiltinScope(gk runtimeschema.GroupKind) (namespaced, known bool) {
	if namespaced, known = builtinScopes()[gk]; known {
		return namespaced, known
	}
	namespaced, known = crdScopes()[gk]
	return namespaced, known
}

// ParseScopes reads a scope table in scopes.txt's format.
func ParseScopes(text string) (map[runtimeschema.GroupKind]bool, error) {
	out := map[runtimeschema.GroupKind]bool{}
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != "Namespaced" && f[2] != "Cluster" {
			return nil, fmt.Errorf("line %d: %q is not \"group kind Namespaced|Cluster\"", i+1, line)
		}
		group := f[0]
		if group == "core" {
			group = ""
		}
		out[runtimeschema.GroupKind{Group: group, Kind: f[1]}] = f[2] == "Namespaced"
	}
	return out, nil
}

// FormatScopes writes scopes in scopes.txt's format, sorted.
func FormatScopes(scopes map[runtimeschema.GroupKind]bool) string {
	lines := make([]string, 0, len(scopes))
	for gk, namespaced := range scopes {
		group, scope := gk.Group, "Cluster"
		if group == "" {
			group = "core"
		}
		if namespaced {
			scope = "Namespaced"
		}
		lines = append(lines, group+" "+gk.Kind+" "+scope)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}
