package config

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/apply/healthcheck"
	"github.com/roleout/roleout/internal/object"
)

// App is one kustomize overlay reconciled into the cluster.
type App struct {
	Name string `json:"name"`
	// Path is the overlay's directory, relative to the repository root.
	Path string `json:"path"`
	// Namespace is set on namespaced objects that name none.
	Namespace string `json:"namespace,omitempty"`
	// Kubeconfig, when set, is the file of the cluster this app goes to;
	// empty is the agent's cluster. One agent can serve many clusters; an
	// unreachable one affects only its apps.
	Kubeconfig string `json:"kubeconfig,omitempty"`
	// KubeconfigSecret, instead of Kubeconfig, reads the app's cluster
	// from a Secret in the agent's own cluster, each time the app has
	// something to do, so a rotated credential is picked up. It may carry
	// only inline credentials unless clusters.allowUnsafeKubeconfigs.
	KubeconfigSecret *SecretKeyRef `json:"kubeconfigSecret,omitempty"`
	Roles            []Role        `json:"roles,omitempty"`
	// UnorderedRoles places roles without an upgradeOrder First (as 0,
	// the default) or Last.
	UnorderedRoles       string          `json:"unorderedRoles,omitempty"`
	Prune                bool            `json:"prune,omitempty"`
	AllowEmpty           bool            `json:"allowEmpty,omitempty"`
	Force                bool            `json:"force,omitempty"`
	Paused               bool            `json:"paused,omitempty"`
	Timeout              metav1.Duration `json:"timeout,omitempty"`
	RevisionHistoryLimit *int            `json:"revisionHistoryLimit,omitempty"`
	Windows              []Window        `json:"windows,omitempty"`
	// Render sets what the app's kustomize build may do and its limits.
	Render Render `json:"render,omitempty"`
	// AllowedNamespaces are the namespaces the app's objects may be in,
	// and the Namespaces it may declare: names, or a prefix and "*". The
	// app's namespace (default: default) is always allowed. Unset:
	// defaults.allowedNamespaces, else the app's namespace and the
	// Namespaces the app declares in its render.
	AllowedNamespaces []string `json:"allowedNamespaces,omitempty"`
	// AllowedKinds are the kinds the app's objects may be, namespaced and
	// cluster-scoped alike. Unset: defaults.allowedKinds, else every
	// namespaced kind and, of the cluster-scoped ones, Namespace only.
	AllowedKinds []AllowedKind `json:"allowedKinds,omitempty"`
	// Adopt lets the app take over objects that exist without being its
	// own: another app's (label roleout.dev/app) or created outside
	// roleout. Default false: such an object makes the whole rollout fail
	// before anything is written, unless the object is annotated
	// roleout.dev/adopt: "true" and AllowedAnnotations lists it.
	Adopt bool `json:"adopt,omitempty"`
	// PrunePersistent lets prune delete the Namespaces,
	// CustomResourceDefinitions and PersistentVolumeClaims that left git
	// (a Namespace only when the app created it). Default false: they
	// stay in the cluster (and leave the inventory) unless annotated
	// roleout.dev/prune: "true" and AllowedAnnotations lists it.
	PrunePersistent bool `json:"prunePersistent,omitempty"`
	// AllowedAnnotations are the annotations that grant privileges which
	// the app's objects may use: roleout.dev/adopt (take over the object)
	// and roleout.dev/prune (delete it although persistent). Default
	// none: content in git cannot grant itself what the config did not.
	AllowedAnnotations []string `json:"allowedAnnotations,omitempty"`
	// SelfHeal re-applies, in wave order through the health gates, the
	// objects of the app that someone else changed or deleted (drift),
	// while roleout run watches them. Default true; false records and
	// reports drift without writing.
	SelfHeal *bool `json:"selfHeal,omitempty"`
	// Generator is the index, from 1, of the generator in appGenerators
	// that made the app; 0 for a written app.
	Generator int `json:"-"`
	// Removed marks a generated app whose directory left git: its
	// reconcile renders nothing and records phase Removed.
	Removed bool `json:"-"`
	// DependsOn names the apps this one waits for: each must be rolled
	// out and healthy at the newest commit before this app is applied
	// (Flux's dependsOn). Their CustomResourceDefinitions also give the
	// scope and schema of this app's custom resources in an offline plan.
	DependsOn []string `json:"dependsOn,omitempty"`
	// Substitute are variables replaced in the rendered objects after
	// the build (${var}, ${var:=default}: Flux's postBuild syntax); they
	// win over SubstituteFrom. With neither set, nothing is substituted.
	Substitute map[string]string `json:"substitute,omitempty"`
	// SubstituteFrom are ConfigMaps and Secrets of the app's cluster
	// whose data are variables too, later ones winning.
	SubstituteFrom []SubstituteReference `json:"substituteFrom,omitempty"`
	// Decryption decrypts the app's SOPS-encrypted Secrets after the
	// render, in the agent (never in the render sandbox), with age keys.
	Decryption *Decryption `json:"decryption,omitempty"`
	// SubstituteAllowUnset makes a variable no source sets, used without
	// a default, the empty string; by default it is an error naming it.
	SubstituteAllowUnset bool `json:"substituteAllowUnset,omitempty"`
	// HealthChecks are CEL health rules per kind for the wave gate
	// (apply/healthcheck: Flux's healthCheckExprs shape), in place of
	// kstatus and the built-in readiness for that kind.
	HealthChecks []healthcheck.Rule `json:"healthChecks,omitempty"`
}

// HealthRules compiles the health rules of app: the agent's defaults,
// then the app's own, which win for a kind both name.
func (c *Config) HealthRules(app App) (*healthcheck.Rules, error) {
	return healthcheck.Compile(append(slices.Clone(c.Defaults.HealthChecks), app.HealthChecks...))
}

// Decryption says how an app's SOPS-encrypted Secrets are decrypted.
type Decryption struct {
	// Provider is sops.
	Provider string `json:"provider"`
	// KeyFiles are files of age keys on the agent's machine (age-keygen's
	// format: AGE-SECRET-KEY-1… lines).
	KeyFiles []string `json:"keyFiles,omitempty"`
	// KeySecret is a Secret of the agent's own cluster whose entries
	// named *.agekey hold age keys (Flux's sops-age Secret).
	KeySecret *SecretRef `json:"keySecret,omitempty"`
}

// SecretRef names a Secret.
type SecretRef struct {
	// Namespace of the Secret; empty is the namespace the agent runs in.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// SubstituteReference is a ConfigMap or Secret whose data are variables
// of an app's substitution.
type SubstituteReference struct {
	// Kind is ConfigMap or Secret.
	Kind string `json:"kind"`
	// Namespace of the object; empty is the namespace the agent runs in.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Optional lets the object be missing (its variables are then unset).
	Optional bool `json:"optional,omitempty"`
}

// Substitutes reports whether app substitutes variables after the build.
func (app App) Substitutes() bool { return len(app.Substitute) > 0 || len(app.SubstituteFrom) > 0 }

// GrantingAnnotations are the annotations AllowedAnnotations may list.
var GrantingAnnotations = []string{object.AdoptAnnotation, object.PruneAnnotation}

// Honours reports whether app's objects may use annotation (one of
// GrantingAnnotations) to grant themselves its privilege.
func (app App) Honours(annotation string) bool {
	return slices.Contains(app.AllowedAnnotations, annotation)
}

// HealsDrift reports whether app heals drift (selfHeal, default true).
func (app App) HealsDrift() bool { return app.SelfHeal == nil || *app.SelfHeal }

// SecretKeyRef names one key of a Secret.
type SecretKeyRef struct {
	// Namespace of the Secret; empty is the namespace the agent runs in.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Key holding the kubeconfig; empty is "value", as in Flux.
	Key string `json:"key,omitempty"`
}

// Render is an app's kustomize build settings. Zero limits take the
// defaults of the render sandbox (render.DefaultOptions, applied by the agent).
type Render struct {
	// RemoteHosts are the hosts remote bases may come from; none by
	// default.
	RemoteHosts []string `json:"remoteHosts,omitempty"`
	// EnableHelm renders kustomize's helmCharts with Helm's library inside
	// the render sandbox (no helm program); remote charts only from
	// RemoteHosts. Previews never render charts.
	EnableHelm bool `json:"enableHelm,omitempty"`
	// EnableExec lets exec KRM functions and plugins run.
	EnableExec   bool            `json:"enableExec,omitempty"`
	MaxObjects   int             `json:"maxObjects,omitempty"`
	MaxBytes     int64           `json:"maxBytes,omitempty"`
	MaxFileBytes int64           `json:"maxFileBytes,omitempty"`
	Timeout      metav1.Duration `json:"timeout,omitempty"`
	// MaxMemoryBytes is the most memory the render's sandbox process may
	// use (address space and resident memory). Default 2 GiB; at least
	// 256 MiB.
	MaxMemoryBytes int64 `json:"maxMemoryBytes,omitempty"`
	// RequireNetworkIsolation refuses a render that may reach no host
	// (remoteHosts empty) where the kernel gives it no network namespace
	// of its own, rather than relying on the fetch gate alone. Default
	// false for the app's own renders and true for its previews: no
	// isolation, no preview.
	RequireNetworkIsolation *bool `json:"requireNetworkIsolation,omitempty"`
}

// Role declares a role: its upgradeOrder and, optionally, the
// criteria that put objects into it. An object joins the role when it
// matches every criterion set (selector, kinds, names, paths) and has no
// roleout.dev/role annotation of its own; a role whose criteria match no
// object of the render is an error. See model.RoleSpec.
type Role struct {
	Name         string                `json:"name"`
	UpgradeOrder *int                  `json:"upgradeOrder,omitempty"`
	Selector     *metav1.LabelSelector `json:"selector,omitempty"`
	// Kinds, when set, claims objects of these kinds only.
	Kinds []string `json:"kinds,omitempty"`
	// Names, when set, claims objects whose name matches one of these
	// shell patterns ("postgres-*"); a pattern with a "/" matches
	// namespace/name of a namespaced object ("data/*").
	Names []string `json:"names,omitempty"`
	// Paths, when set, claims objects rendered from a file at or under
	// one of these repository paths ("bases/database"), relative to the
	// repository root.
	Paths []string `json:"paths,omitempty"`
	// Annotations, when set, claims objects whose annotation of each key
	// has one of the values listed; "" matches an object without it
	// ({argocd.argoproj.io/sync-wave: ["", "0"]}: Argo CD's wave 0).
	Annotations map[string][]string `json:"annotations,omitempty"`
}

// Window allows or denies rollouts for Duration after each time
// Cron fires.
type Window struct {
	Kind     string          `json:"kind"` // allow or deny
	Cron     string          `json:"cron"`
	Duration metav1.Duration `json:"duration"`
	TimeZone string          `json:"timeZone,omitempty"`
}
