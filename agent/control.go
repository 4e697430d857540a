package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/sources"
)

// ControlConfigMap names the ConfigMap through which roleout suspend,
// resume and reconcile reach the agents of an install: one per install, in
// the agent's namespace on its home cluster (ControlNamespace), never in
// git, because anyone who can push could then stop rollouts. Its data
// holds, per app, the keys "<app>.suspended" ("true"), "<app>.suspendedBy",
// "<app>.suspendedAt" and "<app>.reconcileRequestedAt" (RFC 3339).
const ControlConfigMap = "roleout-control"

// Per-app data keys of the control ConfigMap: "<app>.<key>".
const (
	controlSuspended   = "suspended"
	controlSuspendedBy = "suspendedBy"
	controlSuspendedAt = "suspendedAt"
	controlRequestedAt = "reconcileRequestedAt"
)

// AppControl is what the control ConfigMap says of one app; roleout
// suspend, resume and reconcile print it with --output json.
type AppControl struct {
	App       string `json:"app"`
	Suspended bool   `json:"suspended"`
	// SuspendedBy and SuspendedAt say who suspended the app and when
	// (RFC 3339), when known; empty unless Suspended.
	SuspendedBy string `json:"suspendedBy,omitempty"`
	SuspendedAt string `json:"suspendedAt,omitempty"`
	// RequestedAt is when a reconcile was last requested (RFC 3339).
	RequestedAt string `json:"requestedAt,omitempty"`
}

// controlOf returns what data, the control ConfigMap's data, says of app.
func controlOf(data map[string]string, app string) AppControl {
	c := AppControl{App: app, Suspended: data[app+"."+controlSuspended] == "true", RequestedAt: data[app+"."+controlRequestedAt]}
	if c.Suspended {
		c.SuspendedBy, c.SuspendedAt = data[app+"."+controlSuspendedBy], data[app+"."+controlSuspendedAt]
	}
	return c
}

// Why says who suspended the app and when, as far as known.
func (c AppControl) Why() string {
	s := "suspended"
	if c.SuspendedBy != "" {
		s += " by " + c.SuspendedBy
	}
	if c.SuspendedAt != "" {
		s += " at " + c.SuspendedAt
	}
	return s
}

// ControlSource reads the control ConfigMap (ControlConfigMap) of the
// agent's install.
type ControlSource interface {
	// Get reads it once; nil when it does not exist.
	Get(ctx context.Context) (*corev1.ConfigMap, error)
	// Watch streams it until ctx ends, calling changed with it (nil
	// once deleted) after the first listing and at every change, and
	// returns whether the first listing was delivered. An idle watch
	// makes no request.
	Watch(ctx context.Context, changed func(*corev1.ConfigMap)) (synced func() bool)
}

// control is the agent's copy of the control ConfigMap: kept live by the
// watch Run starts, read once per RunOnce otherwise.
type control struct {
	src ControlSource
	log logrus.FieldLogger
	// serves reports whether the agent serves an app (its config, its
	// shard); touched is called with the served apps a change concerns.
	serves  func(app string) bool
	touched func(apps []string)

	mu     sync.Mutex
	data   map[string]string
	loaded bool
	// synced is the running watch's; gen counts watches started, so
	// that the end of an old one does not clear a newer one.
	synced func() bool
	gen    int
}

// start watches the control ConfigMap until ctx ends (roleout run): a
// change for an app this agent serves makes it plan that app again and
// poll now.
func (c *control) start(ctx context.Context) {
	if c.src == nil {
		return
	}
	synced := c.src.Watch(ctx, c.changed)
	c.mu.Lock()
	c.gen++
	gen := c.gen
	c.synced = synced
	c.mu.Unlock()
	context.AfterFunc(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.gen == gen {
			c.synced = nil
		}
	})
}

// live reports whether a running watch keeps the copy up to date.
func (c *control) live() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.synced != nil && c.synced()
}

// load makes the copy current before a poll: nothing to do while the
// watch is live, else one GET. An error (other than the ConfigMap being
// absent) stops the poll: the agent never rolls out an app it cannot tell
// is not suspended.
func (c *control) load(ctx context.Context) error {
	if c.src == nil || c.live() {
		return nil
	}
	cm, err := c.src.Get(ctx)
	if err != nil {
		return err
	}
	data := c.accept(cm)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.synced == nil || !c.synced() {
		c.data, c.loaded = data, true
	}
	return nil
}

// accept returns cm's data, or none when cm was applied by an app from git
// (it carries roleout.dev/app): only roleout suspend, resume and reconcile
// may write it.
func (c *control) accept(cm *corev1.ConfigMap) map[string]string {
	if cm == nil {
		return nil
	}
	if app := cm.Labels[object.AppLabel]; app != "" {
		c.log.WithFields(logrus.Fields{"configMap": cm.Namespace + "/" + cm.Name, "app": app}).
			Error("control ConfigMap ignored: it carries roleout.dev/app, so it was applied from git by an app; only roleout suspend, resume and reconcile may write it")
		return nil
	}
	return cm.Data
}

// changed takes a new version from the watch and passes the apps it
// changes anything for, among those this agent serves, to touched. The
// first listing only fills the copy (the poll at the loop's start reads
// it); once the watch has synced, even a ConfigMap created after an
// empty listing is a change.
func (c *control) changed(cm *corev1.ConfigMap) {
	data := c.accept(cm)
	c.mu.Lock()
	old, first := c.data, !c.loaded && (c.synced == nil || !c.synced())
	c.data, c.loaded = data, true
	c.mu.Unlock()
	if first {
		return
	}
	var apps []string
	for _, m := range []map[string]string{old, data} {
		for k := range m {
			app, _, _ := strings.Cut(k, ".")
			if old[k] != data[k] && !slices.Contains(apps, app) && c.serves(app) {
				apps = append(apps, app)
			}
		}
	}
	slices.Sort(apps)
	for _, app := range apps {
		was, now := controlOf(old, app), controlOf(data, app)
		log := c.log.WithField("app", app)
		switch {
		case now.Suspended && !was.Suspended:
			log.Info("app " + now.Why() + ": nothing is applied or healed until roleout resume")
		case was.Suspended && !now.Suspended:
			log.Info("app resumed: polling now")
		case now.RequestedAt != was.RequestedAt:
			log.WithField("requestedAt", now.RequestedAt).Info("reconcile requested: polling now")
		}
	}
	if len(apps) > 0 {
		c.touched(apps)
	}
}

// get returns what the copy says of app.
func (c *control) get(app string) AppControl {
	c.mu.Lock()
	defer c.mu.Unlock()
	return controlOf(c.data, app)
}

// servesApp reports whether app is in the agent's configuration.
func (a *Agent) servesApp(app string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.ContainsFunc(a.cfg.Apps, func(c config.App) bool { return c.Name == app })
}

// controlChanged makes the next poll, which it starts at once, plan apps
// again even at a revision already reconciled: their suspension changed
// (the status shows Suspended, or the app rolls out again), or a
// reconcile was requested.
func (a *Agent) controlChanged(apps []string) {
	a.mu.Lock()
	for _, app := range apps {
		delete(a.done, app)
		a.replan[app] = true
	}
	a.mu.Unlock()
	a.Trigger()
}

// suspended reports whether app is suspended (roleout suspend), and says
// by whom and since when.
func (a *Agent) suspended(app string) (bool, string) {
	s := a.control.get(app)
	return s.Suspended, s.Why()
}

// held returns the phase, status message and commit-message word of an
// app that must apply nothing: paused in its config, or suspended; "" for
// neither.
func (a *Agent) held(app config.App) (phase, message, word string) {
	suspended, why := a.suspended(app.Name)
	switch {
	case app.Paused:
		message = "app is paused: planned, nothing applied"
		if suspended {
			message += "; it is also " + why
		}
		return PhasePaused, message, "paused"
	case suspended:
		return PhaseSuspended, fmt.Sprintf("app is %s: planned, nothing applied (roleout resume --app %s lifts it)", why, app.Name), "suspended"
	}
	return "", "", ""
}

// suspendedStop returns, between two waves of app's rollout at rev, the
// error that stops it when the app was suspended meanwhile: the rollout
// stops as when superseded, and the next plan records it Suspended. Nil
// when the app is not suspended.
func (a *Agent) suspendedStop(app string, wave int, rev sources.SourceRevision) error {
	suspended, why := a.suspended(app)
	if !suspended {
		return nil
	}
	return &suspendStopError{superseded: SupersededError{Wave: wave, By: rev}, why: why}
}

// suspendStopError stops a rollout between waves because its app was
// suspended. It unwraps to a *SupersededError, so the rollout stops and is
// planned again (and then held) as when a newer commit arrives.
type suspendStopError struct {
	superseded SupersededError
	why        string
}

func (e *suspendStopError) Error() string {
	return fmt.Sprintf("stopped after wave %d: the app was %s", e.superseded.Wave+1, e.why)
}

func (e *suspendStopError) Unwrap() error { return &e.superseded }
