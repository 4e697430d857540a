package sharding

import (
	"context"
	"slices"
	"time"

	"github.com/sirupsen/logrus"
	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sight records l as seen at now and returns its sighting: a new
// resourceVersion is a change seen now.
func (r *Replica) sight(l *coordv1.Lease, now time.Time) sighting {
	s, ok := r.seen[l.Name]
	if !ok || s.rv != l.ResourceVersion {
		s = sighting{rv: l.ResourceVersion, holder: holder(l), at: now}
		r.seen[l.Name] = s
	}
	return s
}

// gone is the resourceVersion a sighting gets when its Lease left the
// list: deleted by its replica as it left, or by someone else.
const gone = "gone"

// observe records the member Leases of a list read at now. A Lease gone
// from the list leaves the members at once, but its holder's claims are
// respected for a lease duration still (holding), in case it was deleted
// under a replica that still works.
//
// It returns the member Leases unchanged for Options.ForgetAfter: left behind by
// replicas that died (a Deployment's pods get new names), to delete.
func (r *Replica) observe(items []coordv1.Lease, now time.Time) (stale []coordv1.Lease) {
	r.mu.Lock()
	defer r.mu.Unlock()
	listed := map[string]bool{}
	for i := range items {
		if l := &items[i]; l.Labels[LabelKind] == kindMember {
			listed[l.Name] = true
			if s := r.sight(l, now); now.Sub(s.at) > r.o.ForgetAfter && l.Name != MemberLeaseName(r.o.Group, r.o.Identity) {
				stale = append(stale, *l)
			}
		}
	}
	var live []string
	for name, s := range r.seen {
		switch {
		case !listed[name] && s.rv != gone:
			r.seen[name] = sighting{rv: gone, holder: s.holder, at: now}
		case !listed[name] && now.Sub(s.at) > 2*r.o.LeaseDuration:
			delete(r.seen, name)
		case listed[name] && s.holder != "" && now.Sub(s.at) < r.o.LeaseDuration:
			live = append(live, s.holder)
		}
	}
	if r.session != nil {
		live = append(live, r.o.Identity)
	}
	slices.Sort(live)
	live = slices.Compact(live)
	if !slices.Equal(live, r.live) {
		r.o.Log.WithField("members", live).Info("sharding: live members changed")
	}
	r.live = live
	return stale
}

// forget deletes the member Leases of replicas long dead, each only if
// it is still the version seen (a precondition on its resourceVersion).
func (r *Replica) forget(ctx context.Context, stale []coordv1.Lease) {
	for _, l := range stale {
		uid, rv := l.UID, l.ResourceVersion
		err := r.o.Leases.Delete(ctx, l.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
		if err == nil {
			r.o.Log.WithField("lease", l.Name).Info("sharding: deleted the member Lease of a replica gone for good")
		}
	}
}

// holding reports whether member's claims must be respected at now: it
// is live, or its Lease changed or left the list within a lease duration.
func (r *Replica) holding(member string, now time.Time) bool {
	if slices.Contains(r.live, member) {
		return true
	}
	for _, s := range r.seen {
		if s.holder == member && now.Sub(s.at) < r.o.LeaseDuration {
			return true
		}
	}
	return false
}

// A move is a write to an app Lease that balance decided on.
type move struct {
	app   string
	lease *coordv1.Lease // nil: create
	claim bool           // claim it, else hand it over
}

// balance decides, from a list of Leases, which apps to claim and which
// to hand over, and writes those Leases.
func (r *Replica) balance(ctx context.Context, items []coordv1.Lease) {
	byApp := map[string]*coordv1.Lease{}
	for i := range items {
		if l := &items[i]; l.Labels[LabelKind] == kindApp {
			byApp[l.Annotations[AnnotationApp]] = l
		}
	}
	r.mu.Lock()
	session, now := r.session, time.Now()
	var moves []move
	var lost []string
	for _, app := range r.apps {
		l := byApp[app]
		h := holder(l)
		want := Assign(app, r.live)
		if r.held[app] != nil {
			if h != r.o.Identity { // taken while this replica held it: cannot happen while the session holds
				r.o.Log.WithFields(logrus.Fields{"app": app, "holder": h}).Error("sharding: an app's Lease changed hands while held")
				delete(r.held, app)
				lost = append(lost, app)
				continue
			}
			r.held[app] = l
			r.leaving[app] = want != r.o.Identity
			if r.leaving[app] && r.busy[app] == 0 {
				delete(r.held, app)
				delete(r.leaving, app)
				lost = append(lost, app)
				moves = append(moves, move{app: app, lease: l})
			}
			continue
		}
		switch {
		case session == nil:
		case want == r.o.Identity && (l == nil || h == "" || h == r.o.Identity || !r.holding(h, now)):
			moves = append(moves, move{app: app, lease: l, claim: true})
		case h == r.o.Identity: // a claim of an earlier session, no longer this replica's
			moves = append(moves, move{app: app, lease: l})
		}
	}
	for app := range r.held { // apps that left the configuration
		if !slices.Contains(r.apps, app) && r.busy[app] == 0 {
			moves = append(moves, move{app: app, lease: r.held[app]})
			delete(r.held, app)
			lost = append(lost, app)
		}
	}
	r.ownersLocked(byApp)
	r.mu.Unlock()
	r.tellLost(lost)
	r.move(ctx, session, moves)
}

// move writes the app Leases balance decided on; claims that succeed
// while session still runs are held.
func (r *Replica) move(ctx context.Context, session context.Context, moves []move) {
	var gained []string
	for _, m := range moves {
		who := ""
		if m.claim {
			who = r.o.Identity
		}
		l, err := r.writeApp(ctx, m.app, m.lease, who)
		if err != nil {
			if !apierrors.IsConflict(err) && !apierrors.IsAlreadyExists(err) && ctx.Err() == nil {
				r.o.Log.WithError(err).WithField("app", m.app).Warn("sharding: cannot write the app's Lease")
			}
			continue
		}
		if !m.claim {
			r.o.Log.WithField("app", m.app).Info("sharding: app handed over")
			continue
		}
		r.mu.Lock()
		if r.session == session && session != nil {
			r.held[m.app] = l
			gained = append(gained, m.app)
		}
		r.mu.Unlock()
	}
	if len(gained) > 0 {
		r.o.Log.WithField("apps", gained).Info("sharding: apps claimed")
		if r.o.Gained != nil {
			r.o.Gained(gained)
		}
	}
}

// writeApp creates app's Lease held by who, or, when l is its current
// version, sets its holder to who ("" to hand it over): a
// compare-and-swap on l's resourceVersion.
func (r *Replica) writeApp(ctx context.Context, app string, l *coordv1.Lease, who string) (*coordv1.Lease, error) {
	wctx, cancel := context.WithTimeout(ctx, r.o.RenewDeadline/2)
	defer cancel()
	now := time.Now()
	if l == nil {
		nl := newLease(r.o.Group, kindApp, AppLeaseName(r.o.Group, app), map[string]string{AnnotationApp: app}, who, r.o.LeaseDuration, now)
		return r.o.Leases.Create(wctx, nl, metav1.CreateOptions{})
	}
	nl := l.DeepCopy()
	hold(nl, who, r.o.LeaseDuration, now)
	return r.o.Leases.Update(wctx, nl, metav1.UpdateOptions{})
}

// leave ends the session, waits a little for reconciles to stop, hands
// every held app over and deletes the member Lease.
func (r *Replica) leave() {
	r.mu.Lock()
	held := make(map[string]*coordv1.Lease, len(r.held))
	for app, l := range r.held {
		held[app] = l
	}
	var own *coordv1.Lease
	var lost []string
	fence := func() {}
	if r.session != nil {
		own, fence = r.own, r.endFence
		lost = r.endLocked(context.Canceled)
	}
	r.mu.Unlock()
	r.tellLost(lost)
	for wait := time.Now().Add(r.o.RenewDeadline); time.Now().Before(wait) && r.anyBusy(); {
		time.Sleep(20 * time.Millisecond)
	}
	fence() // what still runs stops before the apps are handed over
	// Run's context has ended: handing back needs one of its own,
	// bounded by the renew deadline.
	ctx, cancel := context.WithTimeout(context.Background(), r.o.RenewDeadline)
	defer cancel()
	for app, l := range held {
		_, _ = r.writeApp(ctx, app, l, "")
	}
	if own != nil {
		uid, rv := own.UID, own.ResourceVersion
		_ = r.o.Leases.Delete(ctx, own.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
	}
	if len(held) > 0 {
		r.o.Log.WithField("apps", len(held)).Info("sharding: left, every app handed over")
	}
}

// anyBusy reports whether a reconcile still runs.
func (r *Replica) anyBusy() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.busy {
		if n > 0 {
			return true
		}
	}
	return false
}
