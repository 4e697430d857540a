package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/apply/healthcheck"
	"github.com/roleout/roleout/internal/object"
)

// APIVersion and Kind identify an agent configuration file.
const (
	APIVersion = "roleout.dev/v1alpha1"
	Kind       = "AgentConfig"
)

// Config is the agent configuration (`roleout run --config agent.yaml`),
// part of the user-facing contract (docs/design.md, "The user-facing
// contract"). Read it with Load or Parse, which reject unknown fields,
// fill defaults and validate.
type Config struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Source     Source       `json:"source"`
	Status     StatusBranch `json:"status,omitempty"`
	Schedule   Schedule     `json:"schedule,omitempty"`
	// CacheDir holds the git cache. Default: the user's cache directory
	// followed by /roleout.
	CacheDir string `json:"cacheDir,omitempty"`
	// Kubeconfig is the cluster to apply to. Empty: $KUBECONFIG, then the
	// in-cluster configuration.
	Kubeconfig string `json:"kubeconfig,omitempty"`
	// Concurrency bounds the apps reconciled at once. Default 4.
	Concurrency int `json:"concurrency,omitempty"`
	// RenderProcesses bounds the renders (each a sandbox process) run at
	// once, previews included. Default: one per CPU.
	RenderProcesses int `json:"renderProcesses,omitempty"`
	// Apply tunes server-side apply.
	Apply Apply `json:"apply,omitempty"`
	// HTTP is the agent's endpoint for health, metrics and hooks.
	HTTP HTTP `json:"http,omitempty"`
	// Healthz bounds the liveness /healthz reports.
	Healthz Healthz `json:"healthz,omitempty"`
	// Defaults hold settings for every app that does not set them itself.
	Defaults Defaults `json:"defaults,omitempty"`
	// Clusters sets what the kubeconfigs of apps' clusters may do.
	Clusters Clusters `json:"clusters,omitempty"`
	// Masks chooses how Secret values are masked and where the mask key
	// is kept.
	Masks Masks `json:"masks,omitempty"`
	// Sharding chooses how several replicas of the agent share the apps.
	Sharding Sharding `json:"sharding,omitempty"`
	// UI is the read-only web view.
	UI UI `json:"ui,omitempty"`
	// Forge is where pull requests' previews and rollouts' results are
	// posted; nil posts nowhere.
	Forge *Forge `json:"forge,omitempty"`
	// Notifications send rollout events to chats and webhooks.
	Notifications []Notification `json:"notifications,omitempty"`
	Apps          []App          `json:"apps"`
	// AppGenerators make one app per directory matching a pattern, at
	// each commit (generators.go).
	AppGenerators []AppGenerator `json:"appGenerators,omitempty"`
}

// Clusters sets what the kubeconfigs of apps' clusters may do
// (docs/design.md, "Safety and trust", Kubeconfigs from Secrets).
type Clusters struct {
	// AllowUnsafeKubeconfigs lets a kubeconfig read from a Secret
	// (apps[].kubeconfigSecret) run exec and auth-provider plugins, read
	// files (tokenFile, client-certificate, client-key,
	// certificate-authority) and skip TLS verification. Default false: a
	// Secret's kubeconfig may only carry inline credentials, so whoever can
	// write the Secret cannot run programs as the agent or send it the
	// agent's own token. Kubeconfig files (apps[].kubeconfig) are the
	// operator's and always trusted.
	AllowUnsafeKubeconfigs bool `json:"allowUnsafeKubeconfigs,omitempty"`
}

// Defaults holds agent-wide defaults of app settings: an app that
// sets a field itself replaces the default, it does not add to it.
type Defaults struct {
	// AllowedNamespaces is apps[].allowedNamespaces of the apps that set
	// none (each app's own namespace stays allowed).
	AllowedNamespaces []string `json:"allowedNamespaces,omitempty"`
	// AllowedKinds is apps[].allowedKinds of the apps that set none.
	AllowedKinds []AllowedKind `json:"allowedKinds,omitempty"`
	// HealthChecks are health rules for every app; an app's own rule for
	// a kind wins.
	HealthChecks []healthcheck.Rule `json:"healthChecks,omitempty"`
}

// AllowedKind allows one kind of an API group, or every kind of it with
// kind "*". Group "" (or none) is the core group.
type AllowedKind struct {
	Group string `json:"group,omitempty"`
	Kind  string `json:"kind"`
}

// Healthz bounds the agent's liveness (docs/design.md, "Liveness:
// the poll watchdog and /healthz").
type Healthz struct {
	// MaxPollAge is how long the running loop may go without completing
	// a poll before /healthz answers 503, and how long one poll (fetch,
	// renders, rollouts, previews, status) may run before it is stopped.
	// Default: three times schedule.interval, at least 5m; for a cron
	// schedule, three times the longest gap between its runs, at least 5m.
	MaxPollAge metav1.Duration `json:"maxPollAge,omitempty"`
}

// HTTP is where `roleout run` (not --once) serves /healthz,
// /readyz, /metrics and, with a secret, POST /hook.
type HTTP struct {
	// Address to listen on. Default ":8080"; "-" serves nothing.
	Address string `json:"address,omitempty"`
	// HookSecretFile holds the shared secret that signs hook deliveries
	// (HMAC-SHA256); without it there is no /hook.
	HookSecretFile string `json:"hookSecretFile,omitempty"`
}

// Apply tunes server-side apply for every app.
type Apply struct {
	// Concurrency bounds the objects applied at once within a wave.
	// Default 16; client QPS and burst are raised to match.
	Concurrency int `json:"concurrency,omitempty"`
	// Events records a Kubernetes Event on every workload a rollout
	// changes (reason RolledOut, with the role, revision and predicted and
	// observed identities). Default true.
	Events *bool `json:"events,omitempty"`
}

// Source is the git repository the agent polls. Exactly one of
// Branch, Tag, Semver and Commit names what to follow.
type Source struct {
	URL          string        `json:"url"`
	Branch       string        `json:"branch,omitempty"`
	Tag          string        `json:"tag,omitempty"`
	Semver       string        `json:"semver,omitempty"`
	Commit       string        `json:"commit,omitempty"`
	Auth         Auth          `json:"auth,omitempty"`
	Verify       *Verify       `json:"verify,omitempty"`
	PullRequests *PullRequests `json:"pullRequests,omitempty"`
	// MaxCheckoutBytes and MaxCheckoutEntries bound each checkout of
	// the source and of pull-request heads: bytes written (one blob under
	// many paths counts once) and files, links and directories. Default
	// 512 MiB and 100,000.
	MaxCheckoutBytes   int64 `json:"maxCheckoutBytes,omitempty"`
	MaxCheckoutEntries int   `json:"maxCheckoutEntries,omitempty"`
}

// Auth names files holding git credentials.
type Auth struct {
	// UsernameEnv, PasswordEnv and TokenEnv name environment variables
	// that hold the credentials, for when files are not at hand.
	UsernameEnv    string `json:"usernameEnv,omitempty"`
	PasswordEnv    string `json:"passwordEnv,omitempty"`
	TokenEnv       string `json:"tokenEnv,omitempty"`
	UsernameFile   string `json:"usernameFile,omitempty"`
	PasswordFile   string `json:"passwordFile,omitempty"`
	TokenFile      string `json:"tokenFile,omitempty"`
	SSHKeyFile     string `json:"sshKeyFile,omitempty"`
	KnownHostsFile string `json:"knownHostsFile,omitempty"`
}

// Verify requires signed commits.
type Verify struct {
	Mode    string   `json:"mode,omitempty"` // head or tag
	PGPKeys []string `json:"pgpKeys,omitempty"`
	SSHKeys []string `json:"sshKeys,omitempty"`
}

// PullRequests lists the ref globs whose heads get previews.
type PullRequests struct {
	Refs []string `json:"refs"`
	// ServiceAccount ("namespace/name") is the identity previews read the
	// cluster as: the agent impersonates it on each app's cluster. It
	// needs get and list in the app's namespaces, and patch and create
	// for server-side dry runs (every preview request is a dry run); what
	// it may not read or dry-run is compared offline. Unset, previews
	// never read the cluster: they diff against the last status in git.
	ServiceAccount string `json:"serviceAccount,omitempty"`
	// MaxHeadsPerPoll bounds the heads previewed after one poll; the rest
	// wait for the next, newest first and in turn across authors, and
	// are never recorded as failed for waiting. Default 20.
	MaxHeadsPerPoll int `json:"maxHeadsPerPoll,omitempty"`
	// MaxTimePerPoll bounds the time previews take after one poll: no
	// head starts once it has passed (one that started finishes).
	// Default 2m.
	MaxTimePerPoll metav1.Duration `json:"maxTimePerPoll,omitempty"`
}

// Default bounds of the previews made after one poll.
const (
	DefaultPreviewHeadsPerPoll = 20
	DefaultPreviewTimePerPoll  = 2 * time.Minute
)

// HeadsPerPoll is MaxHeadsPerPoll, or its default.
func (p *PullRequests) HeadsPerPoll() int {
	if p == nil || p.MaxHeadsPerPoll <= 0 {
		return DefaultPreviewHeadsPerPoll
	}
	return p.MaxHeadsPerPoll
}

// TimePerPoll is MaxTimePerPoll, or its default.
func (p *PullRequests) TimePerPoll() time.Duration {
	if p == nil || p.MaxTimePerPoll.Duration <= 0 {
		return DefaultPreviewTimePerPoll
	}
	return p.MaxTimePerPoll.Duration
}

// StatusBranch is where and as whom status is committed.
type StatusBranch struct {
	// Branch is the status branch. Default roleout/status.
	Branch string `json:"branch,omitempty"`
	Author Author `json:"author,omitempty"`
	// SigningKeyFile, when set, signs the status commits: an armored PGP
	// secret key or an OpenSSH private key, without a passphrase.
	SigningKeyFile string `json:"signingKeyFile,omitempty"`
	// ClusterRevisions puts the role revisions into the agent's cluster
	// too, as ControllerRevisions. On by default.
	ClusterRevisions *ClusterRevisions `json:"clusterRevisions,omitempty"`
}

// Author is a git identity.
type Author struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
}

// Schedule says when to poll: every Interval, or on a Cron
// expression.
type Schedule struct {
	Interval metav1.Duration `json:"interval,omitempty"`
	Cron     string          `json:"cron,omitempty"`
	TimeZone string          `json:"timeZone,omitempty"`
	// DriftCheckInterval is how often the running agent compares each
	// settled app in full with its cluster: a server-side dry run of what
	// roleout applies, as roleout diff does, behind the watches. Unset:
	// DefaultDriftCheck; 0s: never.
	DriftCheckInterval *metav1.Duration `json:"driftCheckInterval,omitempty"`
}

// DefaultDriftCheck is how often the running agent compares an app in
// full with its cluster when schedule.driftCheckInterval is unset.
const DefaultDriftCheck = time.Hour

// DriftCheck returns how often the running agent compares each app in
// full with its cluster; 0 for never.
func (c Schedule) DriftCheck() time.Duration {
	if c.DriftCheckInterval == nil {
		return DefaultDriftCheck
	}
	return c.DriftCheckInterval.Duration
}

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
// defaults of render.DefaultOptions.
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
// object of the render is an error. See render.RoleSpec.
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

// Defaults applied by Parse.
const (
	DefaultStatusBranch         = "roleout/status"
	DefaultInterval             = time.Minute
	DefaultAppTimeout           = 5 * time.Minute
	DefaultRevisionHistoryLimit = 10
)

// Load reads and parses the agent configuration at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read agent config: %w", err)
	}
	return Parse(data, path)
}

// Parse parses an agent configuration strictly: an unknown or
// misspelled field, a duplicate key or a wrong type is an error naming the
// field. It then fills defaults and validates. name is used in errors.
func Parse(data []byte, name string) (*Config, error) {
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("%s: invalid YAML: %w%s", name, err, yamlHint(err))
	}
	var c Config
	strict, err := sigsjson.UnmarshalStrict(js, &c, sigsjson.DisallowUnknownFields)
	if err == nil && len(strict) > 0 {
		err = fmt.Errorf("%w (check the field names against the configuration reference in the README)", strict[0])
	}
	if err != nil {
		if explained := explainDecode(js); explained != nil {
			return nil, fmt.Errorf("%s: %w", name, explained)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c.setDefaults()
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &c, nil
}

// yamlHint says how to fix the YAML errors a hand-written file most
// often has.
func yamlHint(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "found a tab character"), strings.Contains(msg, "found character that cannot start any token"):
		return ": indent with spaces, not tabs (YAML does not allow tabs in indentation)"
	case strings.Contains(msg, "already set in map"), strings.Contains(msg, "duplicate"):
		return ": a key appears twice in the same mapping; keep one"
	case strings.Contains(msg, "mapping values are not allowed"), strings.Contains(msg, "did not find expected key"),
		strings.Contains(msg, "did not find expected '-' indicator"):
		return ": check the indentation at that line (fields of one mapping line up; a value with a colon and a space needs quotes)"
	}
	return ""
}

func (c *Config) setDefaults() {
	if c.Status.Branch == "" {
		c.Status.Branch = DefaultStatusBranch
	}
	if c.Status.Author.Name == "" {
		c.Status.Author.Name = "roleout"
	}
	if c.Status.Author.Email == "" {
		c.Status.Author.Email = "roleout@roleout.dev"
	}
	if c.Schedule.Interval.Duration == 0 && c.Schedule.Cron == "" {
		c.Schedule.Interval.Duration = DefaultInterval
	}
	if c.Concurrency == 0 {
		c.Concurrency = 4
	}
	if c.HTTP.Address == "" {
		c.HTTP.Address = ":8080"
	}
	if c.CacheDir == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			c.CacheDir = filepath.Join(dir, "roleout")
		} else {
			c.CacheDir = filepath.Join(os.TempDir(), "roleout-cache")
		}
	}
	for i := range c.Apps {
		c.Apps[i].setDefaults()
	}
}

// SetAppDefaults fills app's unset fields with their defaults, as Parse
// does for the apps it reads.
func SetAppDefaults(app *App) { app.setDefaults() }

// setDefaults fills the app's unset fields with their defaults.
func (a *App) setDefaults() {
	if a.UnorderedRoles == "" {
		a.UnorderedRoles = "First"
	}
	if a.Timeout.Duration == 0 {
		a.Timeout.Duration = DefaultAppTimeout
	}
	if a.RevisionHistoryLimit == nil {
		n := DefaultRevisionHistoryLimit
		a.RevisionHistoryLimit = &n
	}
}

// App returns the app called name.
func (c *Config) App(name string) (App, error) {
	var names []string
	for _, a := range c.Apps {
		if a.Name == name {
			return a, nil
		}
		names = append(names, a.Name)
	}
	return App{}, fmt.Errorf("app %q is not in the config (apps: %s)", name, strings.Join(names, ", "))
}
