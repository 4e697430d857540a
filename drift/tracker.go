package drift

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/status"
)

// Tracker watches what each app applied and keeps its current drift.
// Start arms it (roleout run); without it (run --once, commands) nothing
// is watched.
type Tracker struct {
	mu      sync.Mutex
	ctx     context.Context
	apps    map[string]*appWatch
	trigger func()
	now     func() time.Time
	// heal is the backoff of healing an object that keeps drifting.
	heal Backoff
	log  logrus.FieldLogger
	// Metric counts drift by app and outcome (healed, recorded); the
	// agent registers it and counts what it records.
	Metric *prometheus.CounterVec
}

// Backoff is the wait before healing an object again after n heals in a
// row that did not stick.
type Backoff interface {
	After(n int) time.Duration
}

// Watcher streams the metadata of objects selected by label, as the
// agent's Cluster does (apply.Applier.Watch).
type Watcher interface {
	Watch(ctx context.Context, refs []object.Ref, selector string, handle func(apply.WatchEvent)) (stop func(), err error)
}

// appWatch is the watch of one app's inventory.
type appWatch struct {
	key     string
	stop    func()
	manager string
	objs    map[object.Ref]*tracked
	// applied holds each object as roleout last applied it, when known:
	// the first listing compares the live object with it (TakenFields),
	// so drift made while no agent watched is found.
	applied map[object.Ref]map[string]any
}

// tracked is one watched object: the fields roleout owned when last seen
// as roleout left it (the baseline), and its drift.
type tracked struct {
	role string
	seen bool
	// base is what roleout owned; baseTime its entry's time.
	base     apply.FieldSet
	baseTime metav1.Time
	// lastRV and last are the newest event's version and roleout's
	// fields in it.
	lastRV   string
	last     apply.FieldSet
	lastTime metav1.Time
	// waitRV is roleout's own last write: events older than it are
	// ignored, and the first at or after it is the new baseline.
	waitRV string
	drift  *status.Drift
	// heals counts heals of this object that came back within
	// HealQuiet of the previous one; nextHeal is when the next may run.
	heals    int
	lastHeal time.Time
	nextHeal time.Time
	recorded bool
}

// HealQuiet is how long healed drift must stay away for the next to count
// as new rather than as a fight with another controller.
const HealQuiet = 5 * time.Minute

// New returns a tracker that logs to log, reads the time from now, calls
// trigger when drift wants a poll, and backs healing off by heal.
func New(log logrus.FieldLogger, now func() time.Time, trigger func(), heal Backoff) *Tracker {
	return &Tracker{apps: map[string]*appWatch{}, log: log, now: now, trigger: trigger, heal: heal,
		Metric: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roleout_drift_total", Help: "Drifted objects found by the watches, by app and outcome (healed, recorded)."}, []string{"app", "outcome"})}
}

// Active reports whether watches are armed (roleout run).
func (d *Tracker) Active() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ctx != nil
}

// Start makes Watch arm watches that live until ctx ends.
func (d *Tracker) Start(ctx context.Context) {
	d.mu.Lock()
	d.ctx = ctx
	d.mu.Unlock()
	context.AfterFunc(ctx, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, w := range d.apps {
			w.stop()
		}
		d.apps = map[string]*appWatch{}
		d.ctx = nil
	})
}

// Watch watches inv, app's inventory, through w (the app's cluster), for
// the fields roleout's field manager owns, unless it already does. Objects
// of inv missing from the cluster once listed are drift, and so are fields
// of applied (each object as roleout last applied it; nil when not known)
// that another manager holds when listed.
func (d *Tracker) Watch(app, manager string, w Watcher, inv []model.InventoryEntry, applied map[object.Ref]map[string]any) {
	d.mu.Lock()
	ctx := d.ctx
	key := inventoryKey(inv)
	cur := d.apps[app]
	d.mu.Unlock()
	if ctx == nil || (cur != nil && cur.key == key) {
		return
	}
	aw := &appWatch{key: key, manager: manager, objs: map[object.Ref]*tracked{}, applied: applied}
	var refs []object.Ref
	for _, e := range inv {
		if e.Prerequisite {
			continue
		}
		ref := e.Ref
		refs = append(refs, ref)
		aw.objs[ref] = &tracked{role: e.Role}
	}
	stop, err := w.Watch(ctx, refs, object.AppLabel+"="+app, func(ev apply.WatchEvent) { d.event(app, aw, ev) })
	if err != nil {
		d.log.WithField("app", app).WithError(err).Warn("cannot watch the app's objects: drift is not detected until the next rollout")
		return
	}
	d.mu.Lock()
	if old := d.apps[app]; old != nil {
		old.stop()
	}
	aw.stop = stop
	d.apps[app] = aw
	d.log.WithFields(logrus.Fields{"app": app, "objects": len(refs)}).Info("watching the app's objects for drift")
	missing := false
	for ref, t := range aw.objs {
		if !t.seen {
			t.drift, missing = Deleted(ref, t.role, metav1.NewTime(d.now().UTC().Truncate(time.Second))), true
		}
	}
	d.mu.Unlock()
	if missing {
		d.trigger()
	}
}

// inventoryKey identifies an inventory, to tell when a watch must change.
func inventoryKey(inv []model.InventoryEntry) string {
	var parts []string
	for _, e := range inv {
		parts = append(parts, e.Role+"|"+e.APIVersion+"|"+e.Kind+"|"+e.Namespace+"|"+e.Name)
	}
	sort.Strings(parts)
	return strings.Join(parts, "\n")
}

// event updates an object's baseline or drift from a watch event.
func (d *Tracker) event(app string, aw *appWatch, ev apply.WatchEvent) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := aw.objs[ev.Object]
	if t == nil {
		return
	}
	now := metav1.NewTime(d.now().UTC().Truncate(time.Second))
	if ev.Meta == nil {
		t.lastRV, t.last = "", nil
		if t.seen && (t.drift == nil || !t.drift.Deleted) {
			t.drift = Deleted(ev.Object, t.role, now)
			d.detected(app, t)
		}
		return
	}
	first := !t.seen
	t.seen = true
	rv := ev.Meta.ResourceVersion
	if t.waitRV != "" && olderThan(rv, t.waitRV) {
		return
	}
	fields, _, err := apply.OwnedFields(ev.Meta.ManagedFields, aw.manager)
	if err != nil {
		return
	}
	t.lastRV, t.last, t.lastTime = rv, fields, apply.OwnedTime(ev.Meta.ManagedFields, aw.manager)
	if first || t.waitRV != "" || t.base == nil || t.lastTime.After(t.baseTime.Time) {
		// Listed, roleout's own write, or roleout applied it since.
		fresh := t.waitRV != ""
		t.rebase()
		if first && !fresh {
			d.takenBefore(app, aw, t, ev, now)
		}
		return
	}
	lost, err := apply.LostFields(t.base, ev.Meta.ManagedFields, aw.manager)
	if err != nil || len(lost.Fields) == 0 {
		return
	}
	if t.drift != nil && !t.drift.Deleted && slices.Equal(t.drift.Fields, lost.Fields) && slices.Equal(t.drift.Managers, lost.Managers) {
		return
	}
	t.drift = Taken(ev.Object, t.role, lost, now)
	d.detected(app, t)
}

// takenBefore records as drift the fields of what roleout applied that
// another manager held when the object was first listed: taken while no
// agent watched. Called with d.mu held.
func (d *Tracker) takenBefore(app string, aw *appWatch, t *tracked, ev apply.WatchEvent, now metav1.Time) {
	applied := aw.applied[ev.Object]
	if applied == nil {
		return
	}
	taken, err := apply.TakenFields(applied, ev.Meta.ManagedFields, aw.manager)
	if err != nil || len(taken.Fields) == 0 {
		return
	}
	t.drift = Taken(ev.Object, t.role, taken, now)
	d.detected(app, t)
}

// Deleted is ref, of role, found missing at since.
func Deleted(ref object.Ref, role string, since metav1.Time) *status.Drift {
	return &status.Drift{Object: ref.String(), Role: role, Deleted: true, Since: since, Ref: ref}
}

// Taken is the fields of ref, of role, that roleout lost or that were
// taken from it, found at since, with the managers that hold them now.
func Taken(ref object.Ref, role string, d apply.FieldDrift, since metav1.Time) *status.Drift {
	return &status.Drift{Object: ref.String(), Role: role, Fields: d.Fields, Managers: d.Managers, Since: since, Ref: ref}
}

// rebase makes the newest event the baseline: roleout left the object so.
func (t *tracked) rebase() {
	t.base, t.baseTime, t.waitRV, t.drift, t.recorded = t.last, t.lastTime, "", nil, false
}

// detected logs new drift and asks for a poll, now or when healing an
// object that keeps drifting may run again. Called with d.mu held.
func (d *Tracker) detected(app string, t *tracked) {
	t.recorded = false
	d.log.WithFields(logrus.Fields{"app": app, "role": t.role}).Warnf("drift: %s", t.drift)
	if wait := t.nextHeal.Sub(d.now()); wait > 0 {
		time.AfterFunc(wait, d.trigger)
		return
	}
	d.trigger()
}

// olderThan reports whether resource version a is older than b; versions
// that do not compare are not.
func olderThan(a, b string) bool {
	c, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && c < 0
}

// Applied tells the watch of app about roleout's own writes: the object
// is rebased on the event of the write, not taken for drift.
func (d *Tracker) Applied(app string, results []apply.Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	aw := d.apps[app]
	if aw == nil {
		return
	}
	for _, res := range results {
		t := aw.objs[res.Object]
		if t == nil || res.ResourceVersion == "" {
			continue
		}
		if t.lastRV != "" && !olderThan(t.lastRV, res.ResourceVersion) {
			t.rebase() // the watch already saw the write
			continue
		}
		t.waitRV = res.ResourceVersion
	}
}

// Due returns app's drift, oldest object first: what healing may act on
// now (heal) and what is left (all of it, for the status).
func (d *Tracker) Due(app string) (heal, all []status.Drift) {
	d.mu.Lock()
	defer d.mu.Unlock()
	aw := d.apps[app]
	if aw == nil {
		return nil, nil
	}
	now := d.now()
	for _, t := range aw.objs {
		if t.drift == nil {
			continue
		}
		all = append(all, *t.drift)
		if !now.Before(t.nextHeal) {
			heal = append(heal, *t.drift)
		}
	}
	Sort(heal)
	Sort(all)
	return heal, all
}

// Unrecorded reports whether app has drift its status does not show yet.
func (d *Tracker) Unrecorded(app string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	aw := d.apps[app]
	if aw == nil {
		return false
	}
	for _, t := range aw.objs {
		if t.drift != nil && !t.recorded {
			return true
		}
	}
	return false
}

// Sort orders drift by object.
func Sort(ds []status.Drift) {
	sort.Slice(ds, func(i, j int) bool { return ds[i].Object < ds[j].Object })
}

// Reported marks app's drift as recorded; healed (selfHeal) starts the
// heal backoff of each healed object, so a controller that keeps changing
// a field is fought at most every few minutes and reported once.
func (d *Tracker) Reported(app string, healed []status.Drift) {
	d.mu.Lock()
	defer d.mu.Unlock()
	aw := d.apps[app]
	if aw == nil {
		return
	}
	for _, t := range aw.objs {
		if t.drift != nil {
			t.recorded = true
		}
	}
	now := d.now()
	for _, h := range healed {
		t := aw.objs[h.Ref]
		if t == nil {
			continue
		}
		if !t.lastHeal.IsZero() && now.Sub(t.lastHeal) < HealQuiet {
			t.heals++
		} else {
			t.heals = 0
		}
		t.lastHeal, t.nextHeal = now, now.Add(d.heal.After(t.heals))
		if t.heals == 2 {
			d.log.WithFields(logrus.Fields{"app": app, "object": h.Object}).Warnf(
				"drift keeps coming back (%s): another controller is changing what roleout applies; healing it backs off, up to every %s", h, HealQuiet)
		}
	}
}

// Forget stops watching app (it left the configuration).
func (d *Tracker) Forget(app string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.apps[app]; w != nil {
		w.stop()
		delete(d.apps, app)
	}
}

// Release stops tracking refs of app: roleout is about to delete them
// (prune), which is not drift.
func (d *Tracker) Release(app string, refs []object.Ref) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.apps[app]; w != nil {
		for _, ref := range refs {
			delete(w.objs, ref)
		}
	}
}
