package agent

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
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/status"
)

// drifts watches what each app applied and keeps its current drift. Run
// starts it (ctx); without it (RunOnce, commands) nothing is watched.
type drifts struct {
	mu      sync.Mutex
	ctx     context.Context
	apps    map[string]*appWatch
	trigger func()
	now     func() time.Time
	// heal is the backoff of healing an object that keeps drifting.
	heal   Backoff
	log    logrus.FieldLogger
	metric *prometheus.CounterVec
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
	// healQuiet of the previous one; nextHeal is when the next may run.
	heals    int
	lastHeal time.Time
	nextHeal time.Time
	recorded bool
}

// healQuiet is how long healed drift must stay away for the next to count
// as new rather than as a fight with another controller.
const healQuiet = 5 * time.Minute

func newDrifts(log logrus.FieldLogger, now func() time.Time, trigger func(), heal Backoff) *drifts {
	return &drifts{apps: map[string]*appWatch{}, log: log, now: now, trigger: trigger, heal: heal, metric: driftMetric()}
}

// active reports whether watches are armed (roleout run).
func (d *drifts) active() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ctx != nil
}

// start makes watch arm watches that live until ctx ends.
func (d *drifts) start(ctx context.Context) {
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

// watch watches inv, app's inventory, on ap's cluster, unless it already
// does. Objects of inv missing from the cluster once listed are drift, and
// so are fields of applied (each object as roleout last applied it; nil
// when not known) that another manager holds when listed.
func (d *drifts) watch(app config.App, ap Cluster, inv []render.InventoryEntry, applied map[object.Ref]map[string]any) {
	d.mu.Lock()
	ctx := d.ctx
	key := inventoryKey(inv)
	cur := d.apps[app.Name]
	d.mu.Unlock()
	if ctx == nil || (cur != nil && cur.key == key) {
		return
	}
	aw := &appWatch{key: key, manager: fieldManager(app), objs: map[object.Ref]*tracked{}, applied: applied}
	var refs []object.Ref
	for _, e := range inv {
		if e.Prerequisite {
			continue
		}
		ref := e.Ref
		refs = append(refs, ref)
		aw.objs[ref] = &tracked{role: e.Role}
	}
	stop, err := ap.Watch(ctx, refs, object.AppLabel+"="+app.Name, func(ev apply.WatchEvent) { d.event(app.Name, aw, ev) })
	if err != nil {
		d.log.WithField("app", app.Name).WithError(err).Warn("cannot watch the app's objects: drift is not detected until the next rollout")
		return
	}
	d.mu.Lock()
	if old := d.apps[app.Name]; old != nil {
		old.stop()
	}
	aw.stop = stop
	d.apps[app.Name] = aw
	d.log.WithFields(logrus.Fields{"app": app.Name, "objects": len(refs)}).Info("watching the app's objects for drift")
	missing := false
	for ref, t := range aw.objs {
		if !t.seen {
			t.drift, missing = deletedDrift(ref, t.role, metav1.NewTime(d.now().UTC().Truncate(time.Second))), true
		}
	}
	d.mu.Unlock()
	if missing {
		d.trigger()
	}
}

// inventoryKey identifies an inventory, to tell when a watch must change.
func inventoryKey(inv []render.InventoryEntry) string {
	var parts []string
	for _, e := range inv {
		parts = append(parts, e.Role+"|"+e.APIVersion+"|"+e.Kind+"|"+e.Namespace+"|"+e.Name)
	}
	sort.Strings(parts)
	return strings.Join(parts, "\n")
}

// event updates an object's baseline or drift from a watch event.
func (d *drifts) event(app string, aw *appWatch, ev apply.WatchEvent) {
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
			t.drift = deletedDrift(ev.Object, t.role, now)
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
	t.drift = fieldDrift(ev.Object, t.role, lost, now)
	d.detected(app, t)
}

// takenBefore records as drift the fields of what roleout applied that
// another manager held when the object was first listed: taken while no
// agent watched. Called with d.mu held.
func (d *drifts) takenBefore(app string, aw *appWatch, t *tracked, ev apply.WatchEvent, now metav1.Time) {
	applied := aw.applied[ev.Object]
	if applied == nil {
		return
	}
	taken, err := apply.TakenFields(applied, ev.Meta.ManagedFields, aw.manager)
	if err != nil || len(taken.Fields) == 0 {
		return
	}
	t.drift = fieldDrift(ev.Object, t.role, taken, now)
	d.detected(app, t)
}

// deletedDrift is ref, of role, found missing at since.
func deletedDrift(ref object.Ref, role string, since metav1.Time) *status.Drift {
	return &status.Drift{Object: ref.String(), Role: role, Deleted: true, Since: since, Ref: ref}
}

// fieldDrift is the fields of ref, of role, that roleout lost or that were
// taken from it, found at since, with the managers that hold them now.
func fieldDrift(ref object.Ref, role string, d apply.FieldDrift, since metav1.Time) *status.Drift {
	return &status.Drift{Object: ref.String(), Role: role, Fields: d.Fields, Managers: d.Managers, Since: since, Ref: ref}
}

// rebase makes the newest event the baseline: roleout left the object so.
func (t *tracked) rebase() {
	t.base, t.baseTime, t.waitRV, t.drift, t.recorded = t.last, t.lastTime, "", nil, false
}

// detected logs new drift and asks for a poll, now or when healing an
// object that keeps drifting may run again. Called with d.mu held.
func (d *drifts) detected(app string, t *tracked) {
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

// applied tells the watch of app about roleout's own writes: the object
// is rebased on the event of the write, not taken for drift.
func (d *drifts) applied(app string, results []apply.Result) {
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

// due returns app's drift, oldest object first: what healing may act on
// now (heal) and what is left (all of it, for the status).
func (d *drifts) due(app string) (heal, all []status.Drift) {
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
	sortDrift(heal)
	sortDrift(all)
	return heal, all
}

// unrecorded reports whether app has drift its status does not show yet.
func (d *drifts) unrecorded(app string) bool {
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

func sortDrift(ds []status.Drift) {
	sort.Slice(ds, func(i, j int) bool { return ds[i].Object < ds[j].Object })
}

// reported marks app's drift as recorded; healed (selfHeal) starts the
// heal backoff of each healed object, so a controller that keeps changing
// a field is fought at most every few minutes and reported once.
func (d *drifts) reported(app string, healed []status.Drift) {
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
		if !t.lastHeal.IsZero() && now.Sub(t.lastHeal) < healQuiet {
			t.heals++
		} else {
			t.heals = 0
		}
		t.lastHeal, t.nextHeal = now, now.Add(d.heal.After(t.heals))
		if t.heals == 2 {
			d.log.WithFields(logrus.Fields{"app": app, "object": h.Object}).Warnf(
				"drift keeps coming back (%s): another controller is changing what roleout applies; healing it backs off, up to every %s", h, healQuiet)
		}
	}
}

// forget stops watching app (it left the configuration).
func (d *drifts) forget(app string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.apps[app]; w != nil {
		w.stop()
		delete(d.apps, app)
	}
}

// release stops tracking refs of app: roleout is about to delete them
// (prune), which is not drift.
func (d *drifts) release(app string, refs []object.Ref) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.apps[app]; w != nil {
		for _, ref := range refs {
			delete(w.objs, ref)
		}
	}
}
