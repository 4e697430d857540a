package control

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"

	"github.com/roleout/roleout/internal/object"
)

// ConfigMapName names the ConfigMap through which roleout suspend,
// resume and reconcile reach the agents of an install: one per install, in
// the agent's namespace on its home cluster (Namespace), never in
// git, because anyone who can push could then stop rollouts. Its data
// holds, per app, the keys "<app>.suspended" ("true"), "<app>.suspendedBy",
// "<app>.suspendedAt" and "<app>.reconcileRequestedAt" (RFC 3339), and a
// rollback request: "<app>.rollbackRole", "<app>.rollbackTo" (the revision
// number), "<app>.rollbackRequestedAt" (RFC 3339, nanoseconds: it names the
// request) and "<app>.rollbackBy".
const ConfigMapName = "roleout-control"

// Per-app data keys of the control ConfigMap: "<app>.<key>".
const (
	controlSuspended   = "suspended"
	controlSuspendedBy = "suspendedBy"
	controlSuspendedAt = "suspendedAt"
	controlRequestedAt = "reconcileRequestedAt"
	rollbackRole       = "rollbackRole"
	rollbackTo         = "rollbackTo"
	rollbackAt         = "rollbackRequestedAt"
	rollbackBy         = "rollbackBy"
)

// rollbackKeys are the keys of a rollback request.
var rollbackKeys = []string{rollbackRole, rollbackTo, rollbackAt, rollbackBy}

// App is what the control ConfigMap says of one app; roleout
// suspend, resume and reconcile print it with --output json.
type App struct {
	App       string `json:"app"`
	Suspended bool   `json:"suspended"`
	// SuspendedBy and SuspendedAt say who suspended the app and when
	// (RFC 3339), when known; empty unless Suspended.
	SuspendedBy string `json:"suspendedBy,omitempty"`
	SuspendedAt string `json:"suspendedAt,omitempty"`
	// RequestedAt is when a reconcile was last requested (RFC 3339).
	RequestedAt string `json:"requestedAt,omitempty"`
	// Rollback is the app's rollback request (roleout rollback), carried
	// out by the agent that serves the app and held until a commit
	// changes the role or roleout resume ends it; nil for none.
	Rollback *Rollback `json:"rollback,omitempty"`
	// Lifted is what roleout resume ended: "suspension", "rollback" or
	// "" (nothing was held). Only Resume sets it.
	Lifted string `json:"lifted,omitempty"`
}

// Rollback is a request to put a role back at a recorded revision.
type Rollback struct {
	Role     string `json:"role"`
	Revision int64  `json:"toRevision"`
	// RequestedAt names the request (RFC 3339 with nanoseconds); By is
	// who made it, when known.
	RequestedAt string `json:"requestedAt"`
	By          string `json:"requestedBy,omitempty"`
}

// Of returns what data, the control ConfigMap's data, says of app.
func Of(data map[string]string, app string) App {
	c := App{App: app, Suspended: data[app+"."+controlSuspended] == "true", RequestedAt: data[app+"."+controlRequestedAt]}
	if c.Suspended {
		c.SuspendedBy, c.SuspendedAt = data[app+"."+controlSuspendedBy], data[app+"."+controlSuspendedAt]
	}
	if role, at := data[app+"."+rollbackRole], data[app+"."+rollbackAt]; role != "" && at != "" {
		// A revision that is not a number stays 0, which no role has: the
		// agent refuses the request and says so.
		n, _ := strconv.ParseInt(data[app+"."+rollbackTo], 10, 64)
		c.Rollback = &Rollback{Role: role, Revision: max(n, 0), RequestedAt: at, By: data[app+"."+rollbackBy]}
	}
	return c
}

// Why says who suspended the app and when, as far as known.
func (c App) Why() string {
	s := "suspended"
	if c.SuspendedBy != "" {
		s += " by " + c.SuspendedBy
	}
	if c.SuspendedAt != "" {
		s += " at " + c.SuspendedAt
	}
	return s
}

// Source reads the control ConfigMap (ConfigMapName) of the
// agent's install.
type Source interface {
	// Get reads it once; nil when it does not exist.
	Get(ctx context.Context) (*corev1.ConfigMap, error)
	// Watch streams it until ctx ends, calling changed with it (nil
	// once deleted) after the first listing and at every change, and
	// returns whether the first listing was delivered. An idle watch
	// makes no request.
	Watch(ctx context.Context, changed func(*corev1.ConfigMap)) (synced func() bool)
}

// Copy is an agent's copy of the control ConfigMap: kept live by the
// watch Start starts (roleout run), read once per Load otherwise.
type Copy struct {
	src Source
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

// NewCopy returns the copy of what src reads. serves reports whether the
// agent serves an app (its config, its shard); touched is called with the
// served apps a change concerns. A nil src reads nothing: every app is
// neither suspended nor asked to reconcile.
func NewCopy(src Source, log logrus.FieldLogger, serves func(app string) bool, touched func(apps []string)) *Copy {
	return &Copy{src: src, log: log, serves: serves, touched: touched}
}

// Start watches the control ConfigMap until ctx ends (roleout run): a
// change for an app this agent serves makes it plan that app again and
// poll now.
func (c *Copy) Start(ctx context.Context) {
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

// Live reports whether a running watch keeps the copy up to date.
func (c *Copy) Live() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.synced != nil && c.synced()
}

// Load makes the copy current before a poll: nothing to do while the
// watch is live, else one GET. An error (other than the ConfigMap being
// absent) stops the poll: the agent never rolls out an app it cannot tell
// is not suspended.
func (c *Copy) Load(ctx context.Context) error {
	if c.src == nil || c.Live() {
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
func (c *Copy) accept(cm *corev1.ConfigMap) map[string]string {
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
func (c *Copy) changed(cm *corev1.ConfigMap) {
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
		was, now := Of(old, app), Of(data, app)
		log := c.log.WithField("app", app)
		switch {
		case now.Suspended && !was.Suspended:
			log.Info("app " + now.Why() + ": nothing is applied or healed until roleout resume")
		case was.Suspended && !now.Suspended:
			log.Info("app resumed: polling now")
		case now.RequestedAt != was.RequestedAt:
			log.WithField("requestedAt", now.RequestedAt).Info("reconcile requested: polling now")
		case now.Rollback != nil && (was.Rollback == nil || *now.Rollback != *was.Rollback):
			log.WithFields(logrus.Fields{"role": now.Rollback.Role, "toRevision": now.Rollback.Revision}).Info("rollback requested: polling now")
		case was.Rollback != nil && now.Rollback == nil:
			log.WithField("role", was.Rollback.Role).Info("rollback hold ended by roleout resume: polling now")
		}
	}
	if len(apps) > 0 {
		c.touched(apps)
	}
}

// Get returns what the copy says of app.
func (c *Copy) Get(app string) App {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Of(c.data, app)
}
