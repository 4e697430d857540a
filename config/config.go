package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/apply/healthcheck"
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
