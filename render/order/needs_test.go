package order

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testobjects"
)

// operator is a kubebuilder layout as kustomize renders config/default
// with samples: RBAC, the manager, its webhook and cert-manager
// certificate, a CRD and one instance.
var operator = []string{
	`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: widgets.example.com},
	  spec: {group: example.com, names: {kind: Widget, plural: widgets}, scope: Namespaced}}`,
	`{apiVersion: v1, kind: ServiceAccount, metadata: {name: manager, namespace: sys}}`,
	`{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: manager-role},
	  rules: [{apiGroups: [example.com], resources: [widgets], verbs: [get, list, watch]}, {apiGroups: [""], resources: [pods], verbs: ["*"]}]}`,
	`{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: everything},
	  rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]}`,
	`{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRoleBinding, metadata: {name: manager-rolebinding},
	  roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: manager-role},
	  subjects: [{kind: ServiceAccount, name: manager, namespace: sys}]}`,
	`{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRoleBinding, metadata: {name: admin-binding},
	  roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: everything},
	  subjects: [{kind: ServiceAccount, name: admin, namespace: sys}]}`,
	`{apiVersion: apps/v1, kind: Deployment, metadata: {name: manager, namespace: sys},
	  spec: {selector: {matchLabels: {control-plane: manager}}, template: {metadata: {labels: {control-plane: manager}},
	    spec: {serviceAccountName: manager, containers: [{name: m, image: m,
	      envFrom: [{configMapRef: {name: settings}}, {secretRef: {name: absent}}],
	      env: [{name: T, valueFrom: {secretKeyRef: {name: token, key: t, optional: true}}}]}],
	      volumes: [{name: cert, secret: {secretName: webhook-server-cert}}]}}}}`,
	`{apiVersion: apps/v1, kind: Deployment, metadata: {name: admin, namespace: sys},
	  spec: {selector: {matchLabels: {app: admin}}, template: {metadata: {labels: {app: admin}},
	    spec: {serviceAccountName: admin, containers: [{name: a, image: a}]}}}}`,
	`{apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: sys}}`,
	`{apiVersion: v1, kind: Secret, metadata: {name: token, namespace: sys}}`,
	`{apiVersion: v1, kind: Service, metadata: {name: webhook-service, namespace: sys},
	  spec: {selector: {control-plane: manager}, ports: [{port: 443}]}}`,
	`{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: vwc,
	  annotations: {cert-manager.io/inject-ca-from: sys/serving-cert}},
	  webhooks: [{name: v.example.com, clientConfig: {service: {name: webhook-service, namespace: sys}}}]}`,
	`{apiVersion: cert-manager.io/v1, kind: Issuer, metadata: {name: selfsigned, namespace: sys}, spec: {selfSigned: {}}}`,
	`{apiVersion: cert-manager.io/v1, kind: Certificate, metadata: {name: serving-cert, namespace: sys},
	  spec: {secretName: webhook-server-cert, issuerRef: {name: selfsigned, kind: Issuer}}}`,
	`{apiVersion: example.com/v1, kind: Widget, metadata: {name: sample, namespace: sys}}`,
}

func refTo(apiVersion, kind, ns, name string) object.Ref {
	return object.Ref{APIVersion: apiVersion, Kind: kind, Namespace: ns, Name: name}
}

var (
	manager     = refTo("apps/v1", "Deployment", "sys", "manager")
	sa          = refTo("v1", "ServiceAccount", "sys", "manager")
	role        = refTo("rbac.authorization.k8s.io/v1", "ClusterRole", "", "manager-role")
	binding     = refTo("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "manager-rolebinding")
	adminRole   = refTo("rbac.authorization.k8s.io/v1", "ClusterRole", "", "everything")
	adminBind   = refTo("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "admin-binding")
	admin       = refTo("apps/v1", "Deployment", "sys", "admin")
	settings    = refTo("v1", "ConfigMap", "sys", "settings")
	service     = refTo("v1", "Service", "sys", "webhook-service")
	webhook     = refTo("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "", "vwc")
	issuer      = refTo("cert-manager.io/v1", "Issuer", "sys", "selfsigned")
	certificate = refTo("cert-manager.io/v1", "Certificate", "sys", "serving-cert")
	widget      = refTo("example.com/v1", "Widget", "sys", "sample")
)

// TestNeeds: the needs of an operator's objects, by every rule: a pod's
// ServiceAccount, bindings, ConfigMaps and a Secret another object makes
// (an optional Secret and one nobody holds are no need), a binding's
// role, a webhook's Service and the pods behind it, its CA's
// Certificate, a Certificate's Issuer, and a custom resource's
// controller (a wildcard grant makes none).
func TestNeeds(t *testing.T) {
	got := Needs(testobjects.Parse(t, operator...))
	want := []Need{
		{binding, role, "binds", bindingWaits},
		{adminBind, adminRole, "binds", bindingWaits},
		{manager, sa, "uses", podsWait},
		{manager, binding, "is granted its rights by", podsWait},
		{manager, settings, "reads", podsWait},
		{manager, certificate, "mounts the Secret webhook-server-cert of", podsWait},
		{admin, adminBind, "is granted its rights by", podsWait},
		{webhook, manager, "calls the pods of", callsFail},
		{webhook, service, "calls", callsFail},
		{webhook, certificate, "takes its CA from", callsFail},
		{certificate, issuer, "is issued by", issuerWaits},
		{widget, manager, "is acted on by", nothingActs},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Needs (-want +got):\n%s", diff)
	}
}

// TestNeedsInstalledOperator: a custom resource whose CRD the objects do
// not hold needs the Subscription that installs its operator; one whose
// CRD they hold does not.
func TestNeedsInstalledOperator(t *testing.T) {
	got := Needs(testobjects.Parse(t,
		`{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: pg, namespace: ops}, spec: {name: postgres}}`,
		`{apiVersion: postgres.example.com/v1, kind: Cluster, metadata: {name: db, namespace: app}}`,
		`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: gadgets.example.com},
		  spec: {group: example.com, names: {kind: Gadget, plural: gadgets}}}`,
		`{apiVersion: example.com/v1, kind: Gadget, metadata: {name: g, namespace: app}}`,
	))
	want := []Need{{refTo("postgres.example.com/v1", "Cluster", "app", "db"), refTo("operators.coreos.com/v1alpha1", "Subscription", "ops", "pg"), "is installed by", nothingActs}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Needs (-want +got):\n%s", diff)
	}
}

// TestNeedsPodTemplatesAnywhere: pod templates of a CronJob and of a
// custom kind that embeds two (a LeaderWorkerSet) are read as a
// Deployment's.
func TestNeedsPodTemplatesAnywhere(t *testing.T) {
	got := Needs(testobjects.Parse(t,
		`{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, namespace: a}}`,
		`{apiVersion: v1, kind: Secret, metadata: {name: pull, namespace: a}}`,
		`{apiVersion: batch/v1, kind: CronJob, metadata: {name: backup, namespace: a}, spec: {schedule: "@daily",
		  jobTemplate: {spec: {template: {spec: {containers: [{name: c, image: c}], volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]}}}}}}`,
		`{apiVersion: leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, metadata: {name: lws, namespace: a},
		  spec: {leaderWorkerTemplate: {leaderTemplate: {spec: {containers: [{name: l, image: l}], imagePullSecrets: [{name: pull}]}},
		    workerTemplate: {spec: {containers: [{name: w, image: w}], volumes: [{name: p, projected: {sources: [{secret: {name: pull}}]}}]}}}}}`,
	))
	want := []Need{
		{refTo("batch/v1", "CronJob", "a", "backup"), refTo("v1", "PersistentVolumeClaim", "a", "data"), "mounts", podsWait},
		{refTo("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "a", "lws"), refTo("v1", "Secret", "a", "pull"), "pulls images with", podsWait},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Needs (-want +got):\n%s", diff)
	}
}

// TestCheck: a need met by a later wave is late; one met by the same or
// an earlier wave, or by the prerequisite step, is not.
func TestCheck(t *testing.T) {
	needs := Needs(testobjects.Parse(t, operator...))
	waves := map[object.Ref]Place{
		manager: {3, "manager"}, sa: {4, "rbac"}, binding: {0, ""}, role: {0, ""}, settings: {3, "manager"},
		certificate: {1, "certmanager"}, issuer: {1, "certmanager"}, webhook: {2, "webhook"}, service: {2, "webhook"},
	}
	got := Check(needs, func(r object.Ref) (Place, bool) { p, ok := waves[r]; return p, ok })
	var lines []string
	for _, l := range got {
		lines = append(lines, l.String())
	}
	want := []string{
		"wave 3's Deployment/sys/manager (role manager) uses ServiceAccount/sys/manager from wave 4 (role rbac): its pods cannot start until then",
		"wave 2's ValidatingWebhookConfiguration/vwc (role webhook) calls the pods of Deployment/sys/manager from wave 3 (role manager): calls to it fail until then",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}
