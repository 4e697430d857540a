package starter

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/plan"
	rschema "github.com/roleout/roleout/render/schema"
)

// config is the app as the agent config would have it, for a render or
// a plan of the proposal.
func (a *App) config() config.App {
	c := config.App{Name: a.Name, Path: a.Path, Namespace: a.Namespace, UnorderedRoles: a.UnorderedRoles,
		AllowedNamespaces: a.AllowedNamespaces, AllowedKinds: a.AllowedKinds, DependsOn: a.DependsOn,
		Prune: a.Prune, Force: a.Force, Substitute: a.Substitute, SubstituteFrom: a.SubstituteFrom,
		Decryption: a.Decryption, HealthChecks: a.HealthChecks}
	c.Render.RemoteHosts, c.Render.EnableHelm = a.RemoteHosts, a.EnableHelm
	for _, r := range a.Roles {
		order := r.UpgradeOrder
		c.Roles = append(c.Roles, config.Role{Name: r.Name, UpgradeOrder: &order, Paths: r.Paths, Annotations: r.Annotations})
	}
	return c
}

// roleOf is the role a rendered object joins through the proposed roles'
// paths: the one whose path holds its source path most closely; "" when
// none does (the role default).
func (a *App) roleOf(o *unstructured.Unstructured) string {
	src := o.GetAnnotations()[object.SourcePathAnnotation]
	best, bestLen := "", -1
	for _, r := range a.Roles {
		for _, p := range r.Paths {
			if (src == p || strings.HasPrefix(src, p+"/")) && len(p) > bestLen {
				best, bestLen = r.Name, len(p)
			}
		}
	}
	return best
}

// proposeRoles keeps the layout's roles that hold objects going into
// waves (a base of CRDs or cluster RBAC alone goes to the prerequisite
// step, whatever its role) and orders them by what their objects need
// of each other (order.go); with fewer than two such roles, the app has
// none.
func (a *App) proposeRoles(objs []*unstructured.Unstructured) {
	if len(a.Roles) == 0 {
		return
	}
	members := map[string][]*unstructured.Unstructured{}
	for _, o := range objs {
		if !plan.IsPrerequisite(o) {
			role := a.roleOf(o)
			members[role] = append(members[role], o)
		}
	}
	var kept []Role
	var dropped []string
	for _, r := range a.Roles {
		if len(members[r.Name]) > 0 {
			kept = append(kept, r)
		} else {
			dropped = append(dropped, strings.Join(r.Paths, ", "))
		}
	}
	if len(dropped) > 0 {
		a.notes = append(a.notes, fmt.Sprintf("no role for %s: only objects of the prerequisite step (CRDs, Namespaces, cluster RBAC, classes), applied before the first wave", strings.Join(dropped, ", ")))
	}
	if len(kept) < 2 {
		if len(kept) == 1 {
			a.notes = append(a.notes, fmt.Sprintf("no roles: only %s holds objects that go into waves", strings.Join(kept[0].Paths, ", ")))
		}
		a.Roles = []Role{}
		return
	}
	a.Roles = kept
	orderRoles(a, objs, members)
}

// proposeKinds lists the kinds the app renders as its allowedKinds when
// the default (every namespaced kind, and Namespaces) would refuse one
// of them: exactly those kinds, the cluster-scoped ones marked.
func (a *App) proposeKinds(objs []*unstructured.Unstructured) {
	scopes := plan.KindScopes(objs, nil)
	refused := false
	seen := map[schema.GroupKind]bool{}
	var kinds []schema.GroupKind
	for _, o := range objs {
		gk := o.GroupVersionKind().GroupKind()
		if seen[gk] {
			continue
		}
		seen[gk] = true
		kinds = append(kinds, gk)
		if namespaced, ok := scopes[gk]; ok && !namespaced {
			if a.clusterKinds == nil {
				a.clusterKinds = map[schema.GroupKind]bool{}
			}
			a.clusterKinds[gk] = true
			refused = refused || gk != (schema.GroupKind{Kind: "Namespace"})
		}
	}
	if !refused {
		return
	}
	slices.SortFunc(kinds, func(x, y schema.GroupKind) int {
		return cmp.Or(cmp.Compare(x.Group, y.Group), cmp.Compare(x.Kind, y.Kind))
	})
	for _, gk := range kinds {
		a.AllowedKinds = append(a.AllowedKinds, config.AllowedKind{Group: gk.Group, Kind: gk.Kind})
	}
}

// proposeNamespaces lists the namespaces the app writes to as its
// allowedNamespaces when the default (its namespace and the Namespaces
// it declares) would refuse one of them.
func (a *App) proposeNamespaces(objs []*unstructured.Unstructured) {
	declared := map[string]bool{a.namespaceOrDefault(): true}
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() == (schema.GroupKind{Kind: "Namespace"}) {
			declared[o.GetName()] = true
		}
	}
	used := map[string]bool{}
	outside := false
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" {
			used[ns] = true
			outside = outside || !declared[ns]
		}
	}
	if !outside {
		return
	}
	for ns := range declared {
		used[ns] = true
	}
	for ns := range used {
		a.AllowedNamespaces = append(a.AllowedNamespaces, ns)
	}
	slices.Sort(a.AllowedNamespaces)
}

func (a *App) namespaceOrDefault() string {
	if a.Namespace == "" {
		return "default"
	}
	return a.Namespace
}

// proposeDependencies makes the app depend on the app that holds the
// CRD of each custom kind it renders without its CRD; a kind no app
// defines is a need, unless its scope is well known (a note then says
// the cluster must serve it). Kubernetes' own kinds, and those whose CRDs
// roleout carries, need nothing.
func (a *App) proposeDependencies(objs []*unstructured.Unstructured, defined map[schema.GroupKind][]string) {
	own := map[schema.GroupKind]bool{}
	for _, o := range objs {
		if gk, _, ok := rschema.CRDScope(o); ok {
			own[gk] = true
		}
	}
	seen := map[schema.GroupKind]bool{}
	var installed []string
	defer func() {
		if len(installed) > 0 {
			a.notes = append(a.notes, fmt.Sprintf("the cluster must serve %s before a rollout: their CRDs come from outside the repository (a plan places their objects, unchecked)", strings.Join(installed, ", ")))
		}
	}()
	for _, o := range objs {
		gk := o.GroupVersionKind().GroupKind()
		if seen[gk] || own[gk] {
			continue
		}
		seen[gk] = true
		if _, builtin := rschema.BuiltinScope(gk); builtin {
			continue
		}
		candidates := slices.DeleteFunc(slices.Clone(defined[gk]), func(n string) bool { return n == a.Name })
		if _, known := rschema.WellKnownScope(gk); known && len(candidates) == 0 {
			installed = append(installed, kindName(gk))
			continue
		}
		if len(candidates) == 0 {
			a.Needs = append(a.Needs, fmt.Sprintf("kind %s: no CustomResourceDefinition in the repository defines it, so its scope and schema are known only to a cluster that serves it (roleout diff asks the cluster); or add its CRD to an app this one depends on", kindName(gk)))
			continue
		}
		a.wants = append(a.wants, dependency{kind: gk, apps: candidates})
	}
}

// dependency is a custom kind an app renders and the apps that hold its
// CRD, before one is chosen (chooseDependencies).
type dependency struct {
	kind schema.GroupKind
	apps []string
}

// chooseDependencies turns each app's wants into dependsOn: of the apps
// holding a CRD it needs, the nearest in the repository (the longest
// common directory), then the one with the shortest path, then by name;
// a dependency that would close a cycle is a need instead.
func chooseDependencies(apps []App) {
	byName := map[string]*App{}
	for i := range apps {
		byName[apps[i].Name] = &apps[i]
	}
	reaches := func(from, to string) bool {
		seen := map[string]bool{}
		queue := []string{from}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			if n == to {
				return true
			}
			if seen[n] || byName[n] == nil {
				continue
			}
			seen[n] = true
			queue = append(queue, byName[n].DependsOn...)
		}
		return false
	}
	for i := range apps {
		a := &apps[i]
		for _, w := range a.wants {
			best := slices.MinFunc(w.apps, func(x, y string) int {
				px, py := byName[x].Path, byName[y].Path
				return cmp.Or(-cmp.Compare(commonDirs(a.Path, px), commonDirs(a.Path, py)), cmp.Compare(len(px), len(py)), cmp.Compare(x, y))
			})
			switch {
			case slices.Contains(a.DependsOn, best):
			case reaches(best, a.Name):
				a.Needs = append(a.Needs, fmt.Sprintf("kind %s: its CRD is in app %s, which depends on this one; a plan needs a cluster that serves the kind", kindName(w.kind), best))
			default:
				a.DependsOn = append(a.DependsOn, best)
				a.notes = append(a.notes, fmt.Sprintf("depends on %s for the CRD of %s", best, kindName(w.kind)))
			}
		}
		a.wants = nil
	}
}

// commonDirs counts the leading directories two slash paths share.
func commonDirs(a, b string) int {
	pa, pb := strings.Split(path.Clean(a), "/"), strings.Split(path.Clean(b), "/")
	n := 0
	for n < len(pa) && n < len(pb) && pa[n] == pb[n] {
		n++
	}
	return n
}

// kindName is a kind and its group, as a need names it.
func kindName(gk schema.GroupKind) string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + " (" + gk.Group + ")"
}
