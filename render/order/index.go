package order

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	rbacGroup        = "rbac.authorization.k8s.io"
	certManagerGroup = "cert-manager.io"
)

// builtinGroups are the API groups of Kubernetes' own kinds: an object
// of one is no custom resource.
var builtinGroups = map[string]bool{
	"": true, "apps": true, "batch": true, "autoscaling": true, "policy": true, rbacGroup: true,
	"networking.k8s.io": true, "storage.k8s.io": true, "admissionregistration.k8s.io": true,
	"apiextensions.k8s.io": true, "apiregistration.k8s.io": true, "coordination.k8s.io": true,
	"discovery.k8s.io": true, "scheduling.k8s.io": true, "node.k8s.io": true, "certificates.k8s.io": true,
	"events.k8s.io": true, "flowcontrol.apiserver.k8s.io": true, "resource.k8s.io": true,
	"storagemigration.k8s.io": true, "internal.apiserver.k8s.io": true, "authentication.k8s.io": true,
	"authorization.k8s.io": true,
}

func builtinGroup(g string) bool { return builtinGroups[g] }

// installerKinds are kinds whose objects install operators, whose CRDs
// and controllers the objects then do not hold: group/kind.
var installerKinds = map[string]bool{
	"operators.coreos.com/Subscription":         true,
	"helm.toolkit.fluxcd.io/HelmRelease":        true,
	"argoproj.io/Application":                   true,
	"kustomize.toolkit.fluxcd.io/Kustomization": true,
}

// group is o's API group.
func group(o *unstructured.Unstructured) string {
	gv, _ := schema.ParseGroupVersion(o.GetAPIVersion())
	return gv.Group
}

// index finds objects by what the rules look them up by.
type index struct {
	objs     []*unstructured.Unstructured
	byKey    map[string]*unstructured.Unstructured // group/kind/namespace/name
	crds     map[string]string                     // group/kind → plural
	bindings []*unstructured.Unstructured
	roles    []*unstructured.Unstructured
	// secretMakers are the objects that make a Secret, by
	// namespace/name (rule 2).
	secretMakers map[string][]*unstructured.Unstructured
	installers   []*unstructured.Unstructured
}

func newIndex(objs []*unstructured.Unstructured) *index {
	ix := &index{objs: objs, byKey: map[string]*unstructured.Unstructured{}, crds: map[string]string{},
		secretMakers: map[string][]*unstructured.Unstructured{}}
	for _, o := range objs {
		g, k := group(o), o.GetKind()
		key := g + "/" + k + "/" + o.GetNamespace() + "/" + o.GetName()
		if _, dup := ix.byKey[key]; !dup {
			ix.byKey[key] = o
		}
		switch {
		case g == "apiextensions.k8s.io" && k == "CustomResourceDefinition":
			cg, _, _ := unstructured.NestedString(o.Object, "spec", "group")
			ck, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
			plural, _, _ := unstructured.NestedString(o.Object, "spec", "names", "plural")
			ix.crds[cg+"/"+ck] = plural
		case g == rbacGroup && (k == "RoleBinding" || k == "ClusterRoleBinding"):
			ix.bindings = append(ix.bindings, o)
		case g == rbacGroup && (k == "Role" || k == "ClusterRole"):
			ix.roles = append(ix.roles, o)
		case installerKinds[g+"/"+k]:
			ix.installers = append(ix.installers, o)
		}
		if name := madeSecret(o); name != "" {
			key := o.GetNamespace() + "/" + name
			ix.secretMakers[key] = append(ix.secretMakers[key], o)
		}
	}
	return ix
}

// madeSecret is the name of the Secret o makes (rule 2), or "".
func madeSecret(o *unstructured.Unstructured) string {
	var name string
	switch group(o) + "/" + o.GetKind() {
	case certManagerGroup + "/Certificate":
		name, _, _ = unstructured.NestedString(o.Object, "spec", "secretName")
	case "bitnami.com/SealedSecret":
		name, _, _ = unstructured.NestedString(o.Object, "spec", "template", "metadata", "name")
		if name == "" {
			name = o.GetName()
		}
	case "external-secrets.io/ExternalSecret":
		name, _, _ = unstructured.NestedString(o.Object, "spec", "target", "name")
		if name == "" {
			name = o.GetName()
		}
	}
	return name
}

// get returns the object of group g and kind k named ns/name, or nil.
func (ix *index) get(g, k, ns, name string) *unstructured.Unstructured {
	if name == "" {
		return nil
	}
	return ix.byKey[g+"/"+k+"/"+ns+"/"+name]
}

// isInstaller reports whether o installs operators.
func (ix *index) isInstaller(o *unstructured.Unstructured) bool {
	return installerKinds[group(o)+"/"+o.GetKind()]
}

// plural is the resource name of kind k of group g: its CRD's among the
// objects (defined), else kind's lower case with an s, as kubebuilder
// and most CRDs name it.
func (ix *index) plural(g, k string) (resource string, defined bool) {
	if p, ok := ix.crds[g+"/"+k]; ok {
		return p, true
	}
	lower := strings.ToLower(k)
	switch {
	case strings.HasSuffix(lower, "s"), strings.HasSuffix(lower, "x"), strings.HasSuffix(lower, "ch"), strings.HasSuffix(lower, "sh"):
		return lower + "es", false
	case strings.HasSuffix(lower, "y") && len(lower) > 1 && !strings.ContainsRune("aeiou", rune(lower[len(lower)-2])):
		return lower[:len(lower)-1] + "ies", false
	}
	return lower + "s", false
}

// bindingsOf returns the bindings whose subjects name the ServiceAccount
// ns/name.
func (ix *index) bindingsOf(ns, name string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, b := range ix.bindings {
		subjects, _, _ := unstructured.NestedSlice(b.Object, "subjects")
		for _, s := range subjects {
			sm, _ := s.(map[string]any)
			if sm["kind"] != "ServiceAccount" || sm["name"] != name {
				continue
			}
			sns, _ := sm["namespace"].(string)
			if sns == "" && b.GetKind() == "RoleBinding" {
				sns = b.GetNamespace()
			}
			if sns == ns {
				out = append(out, b)
				break
			}
		}
	}
	return out
}

// selectedBy returns the workloads whose pods Service svc selects, in
// its namespace.
func (ix *index) selectedBy(svc *unstructured.Unstructured) []*unstructured.Unstructured {
	sel, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "selector")
	if len(sel) == 0 {
		return nil
	}
	selector := labels.SelectorFromSet(sel)
	var out []*unstructured.Unstructured
	for _, o := range ix.objs {
		if o.GetNamespace() != svc.GetNamespace() {
			continue
		}
		for _, p := range podSpecs(o) {
			if selector.Matches(labels.Set(p.labels)) {
				out = append(out, o)
				break
			}
		}
	}
	return out
}

// controllersOf returns the workloads that act on resource of group g:
// those whose ServiceAccount is bound to a role with a rule naming g and
// resource (rule 5).
func (ix *index) controllersOf(g, resource string) []*unstructured.Unstructured {
	granted := map[string]bool{} // namespace/name of ServiceAccounts
	for _, b := range ix.bindings {
		kind, _, _ := unstructured.NestedString(b.Object, "roleRef", "kind")
		name, _, _ := unstructured.NestedString(b.Object, "roleRef", "name")
		ns := ""
		if kind == "Role" {
			ns = b.GetNamespace()
		}
		role := ix.get(rbacGroup, kind, ns, name)
		if role == nil || !grants(role, g, resource) {
			continue
		}
		subjects, _, _ := unstructured.NestedSlice(b.Object, "subjects")
		for _, s := range subjects {
			sm, _ := s.(map[string]any)
			if sm["kind"] != "ServiceAccount" {
				continue
			}
			sns, _ := sm["namespace"].(string)
			if sns == "" {
				sns = b.GetNamespace()
			}
			sname, _ := sm["name"].(string)
			granted[sns+"/"+sname] = true
		}
	}
	if len(granted) == 0 {
		return nil
	}
	var out []*unstructured.Unstructured
	for _, o := range ix.objs {
		for _, p := range podSpecs(o) {
			if granted[o.GetNamespace()+"/"+p.serviceAccount()] {
				out = append(out, o)
				break
			}
		}
	}
	return out
}

// grants reports whether role has a rule that names group g explicitly
// and resource (or every resource) with a verb a controller watches
// with.
func grants(role *unstructured.Unstructured, g, resource string) bool {
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	for _, r := range rules {
		rm, _ := r.(map[string]any)
		groups, _, _ := unstructured.NestedStringSlice(rm, "apiGroups")
		resources, _, _ := unstructured.NestedStringSlice(rm, "resources")
		verbs, _, _ := unstructured.NestedStringSlice(rm, "verbs")
		if slices.Contains(groups, g) && (slices.Contains(resources, resource) || slices.Contains(resources, "*")) &&
			(slices.Contains(verbs, "watch") || slices.Contains(verbs, "*")) {
			return true
		}
	}
	return false
}
