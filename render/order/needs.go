package order

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
)

// Need is one object's need of another: From cannot do its work until
// To exists.
type Need struct {
	From object.Ref `json:"from"`
	To   object.Ref `json:"to"`
	// Reason is what From does with To, as a verb phrase: "uses",
	// "mounts", "is granted its rights by", "calls", "is acted on by".
	Reason string `json:"reason"`
	// Effect is what goes wrong while To is missing: "its pods cannot
	// start", "its calls fail", "nothing acts on it".
	Effect string `json:"effect"`
}

// String is the need in a sentence: "Deployment/ns/manager uses
// ServiceAccount/ns/manager".
func (n Need) String() string {
	return n.From.String() + " " + n.Reason + " " + n.To.String()
}

// Effects of a missing need.
const (
	podsWait     = "its pods cannot start until then"
	callsFail    = "calls to it fail until then"
	nothingActs  = "nothing acts on it until then"
	bindingWaits = "it grants nothing until then"
	issuerWaits  = "no certificate is issued until then"
)

// Needs returns every need among objs (see the package's rules), in a
// stable order: by the needing object's place in objs, then by the
// needed one's. objs must carry their namespaces (plan.DefaultNamespace
// has run).
func Needs(objs []*unstructured.Unstructured) []Need {
	ix := newIndex(objs)
	var out []Need
	seen := map[[2]object.Ref]bool{}
	add := func(from *unstructured.Unstructured, to *unstructured.Unstructured, reason, effect string) {
		f, t := object.RefOf(from), object.RefOf(to)
		if f == t || seen[[2]object.Ref{f, t}] {
			return
		}
		seen[[2]object.Ref{f, t}] = true
		out = append(out, Need{From: f, To: t, Reason: reason, Effect: effect})
	}
	for _, o := range objs {
		for _, p := range podSpecs(o) {
			ix.podNeeds(o, p, add)
		}
		ix.bindingNeeds(o, add)
		ix.webhookNeeds(o, add)
		ix.controllerNeeds(o, add)
		ix.issuerNeeds(o, add)
	}
	pos := map[object.Ref]int{}
	for i, o := range objs {
		if _, ok := pos[object.RefOf(o)]; !ok {
			pos[object.RefOf(o)] = i
		}
	}
	slices.SortStableFunc(out, func(a, b Need) int {
		return cmp.Or(cmp.Compare(pos[a.From], pos[b.From]), cmp.Compare(pos[a.To], pos[b.To]))
	})
	return out
}

// adder records that from needs to.
type adder func(from, to *unstructured.Unstructured, reason, effect string)

// podNeeds adds the needs of the pod spec p of o (rules 1 to 3).
func (ix *index) podNeeds(o *unstructured.Unstructured, p podSpec, add adder) {
	ns := o.GetNamespace()
	sa := p.serviceAccount()
	if t := ix.get("", "ServiceAccount", ns, sa); t != nil {
		add(o, t, "uses", podsWait)
	}
	for _, b := range ix.bindingsOf(ns, sa) {
		add(o, b, "is granted its rights by", podsWait)
	}
	for _, r := range p.refs() {
		switch r.kind {
		case "Secret":
			if t := ix.get("", "Secret", ns, r.name); t != nil {
				add(o, t, r.verb, podsWait)
			} else {
				for _, maker := range ix.secretMakers[ns+"/"+r.name] {
					add(o, maker, r.verb+" the Secret "+r.name+" of", podsWait)
				}
			}
		default:
			if t := ix.get("", r.kind, ns, r.name); t != nil {
				add(o, t, r.verb, podsWait)
			}
		}
	}
}

// bindingNeeds adds a binding's need of its role (rule 3).
func (ix *index) bindingNeeds(o *unstructured.Unstructured, add adder) {
	if group(o) != rbacGroup || (o.GetKind() != "RoleBinding" && o.GetKind() != "ClusterRoleBinding") {
		return
	}
	kind, _, _ := unstructured.NestedString(o.Object, "roleRef", "kind")
	name, _, _ := unstructured.NestedString(o.Object, "roleRef", "name")
	ns := ""
	if kind == "Role" {
		ns = o.GetNamespace()
	}
	if t := ix.get(rbacGroup, kind, ns, name); t != nil {
		add(o, t, "binds", bindingWaits)
	}
}

// webhookNeeds adds the needs of a webhook configuration or an
// APIService (rule 4).
func (ix *index) webhookNeeds(o *unstructured.Unstructured, add adder) {
	var services [][2]string // namespace, name
	switch {
	case group(o) == "admissionregistration.k8s.io" && strings.HasSuffix(o.GetKind(), "WebhookConfiguration"):
		hooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
		for _, h := range hooks {
			hm, _ := h.(map[string]any)
			ns, _, _ := unstructured.NestedString(hm, "clientConfig", "service", "namespace")
			name, _, _ := unstructured.NestedString(hm, "clientConfig", "service", "name")
			if name != "" {
				services = append(services, [2]string{ns, name})
			}
		}
	case group(o) == "apiregistration.k8s.io" && o.GetKind() == "APIService":
		ns, _, _ := unstructured.NestedString(o.Object, "spec", "service", "namespace")
		name, _, _ := unstructured.NestedString(o.Object, "spec", "service", "name")
		if name != "" {
			services = append(services, [2]string{ns, name})
		}
	}
	for _, s := range services {
		svc := ix.get("", "Service", s[0], s[1])
		if svc == nil {
			continue
		}
		add(o, svc, "calls", callsFail)
		for _, w := range ix.selectedBy(svc) {
			add(o, w, "calls the pods of", callsFail)
		}
	}
	if from := o.GetAnnotations()["cert-manager.io/inject-ca-from"]; from != "" {
		if ns, name, ok := strings.Cut(from, "/"); ok {
			if c := ix.get(certManagerGroup, "Certificate", ns, name); c != nil {
				add(o, c, "takes its CA from", callsFail)
			}
		}
	}
}

// controllerNeeds adds a custom resource's need of its controllers
// (rule 5).
func (ix *index) controllerNeeds(o *unstructured.Unstructured, add adder) {
	g := group(o)
	if builtinGroup(g) {
		return
	}
	resource, defined := ix.plural(g, o.GetKind())
	for _, w := range ix.controllersOf(g, resource) {
		add(o, w, "is acted on by", nothingActs)
	}
	if defined || ix.isInstaller(o) {
		return
	}
	for _, inst := range ix.installers {
		add(o, inst, "is installed by", nothingActs)
	}
}

// issuerNeeds adds a Certificate's need of its issuer (rule 6).
func (ix *index) issuerNeeds(o *unstructured.Unstructured, add adder) {
	if group(o) != certManagerGroup || o.GetKind() != "Certificate" {
		return
	}
	name, _, _ := unstructured.NestedString(o.Object, "spec", "issuerRef", "name")
	kind, _, _ := unstructured.NestedString(o.Object, "spec", "issuerRef", "kind")
	var t *unstructured.Unstructured
	switch kind {
	case "", "Issuer":
		t = ix.get(certManagerGroup, "Issuer", o.GetNamespace(), name)
	case "ClusterIssuer":
		t = ix.get(certManagerGroup, "ClusterIssuer", "", name)
	}
	if t != nil {
		add(o, t, "is issued by", issuerWaits)
	}
}
