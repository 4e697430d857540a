package sharding

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordclient "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/roleout/roleout/internal/fence"
)

// Options configure a Replica.
type Options struct {
	// Leases are the agent namespace's Leases.
	Leases coordclient.LeaseInterface
	// Group names the replicas that share one configuration's apps
	// (sharding.name, default DefaultGroup): the prefix of every Lease
	// name, and the value of LabelGroup.
	Group string
	// Identity is this replica's name in the Leases (roleout run
	// --identity).
	Identity string
	// LeaseDuration is how long a member Lease holds unrenewed;
	// RenewDeadline how long this replica keeps working without renewing
	// its own (shorter, so that it stops before another takes over);
	// RetryPeriod how often it renews and looks at the others.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// ForgetAfter is how long a member Lease stays unchanged before a
	// live replica deletes it (its replica is gone for good). Default 20
	// lease durations.
	ForgetAfter time.Duration
	Log         logrus.FieldLogger
	// Gained and Lost are told the apps this replica starts and stops
	// holding; they are called without the replica's lock held.
	Gained, Lost func(apps []string)
	// Heard is told a source revision another live member fetched that
	// this replica has neither fetched nor heard of (heads.go); it is
	// called without the replica's lock held.
	Heard func(head string)
}

// Replica is one agent process's part in dynamic sharding. It holds a
// member Lease while it can renew it (a session); it claims the Lease of
// each app that Assign gives it, and hands an app over (releases its
// Lease) once no reconcile of it runs, when Assign gives it to another.
// An app's Lease is taken from another replica only when that replica's
// member Lease has been seen unchanged for a whole LeaseDuration, and
// every claim is a compare-and-swap on the app Lease's resourceVersion,
// so two replicas never hold one app. A replica that cannot renew its
// member Lease within RenewDeadline ends its session: the contexts of
// its reconciles are cancelled and it holds no app, before any other
// replica may take its apps.
type Replica struct {
	o           Options
	incarnation string
	kick        chan struct{}
	deadline    *time.Timer

	mu      sync.Mutex
	apps    []string
	session context.Context
	end     context.CancelCauseFunc
	// fence ends when other replicas may take this session's apps: a
	// lease duration (less a retry period) after the last renewal sent.
	// Work that must outlive a cancelled reconcile (its progress record)
	// is bounded by it; see Outlive.
	fence    context.Context
	endFence func()
	// claim is the session's claim on its apps (fence.Claim): it ends
	// with the fence, and every write of a reconcile checks it.
	claim *sessionClaim
	// lastRenew is when the last successful renewal of the member Lease
	// was sent; own is that Lease as the API server returned it.
	lastRenew time.Time
	own       *coordv1.Lease
	// seen is, by member Lease name, the last change of it seen.
	seen map[string]sighting
	// held are the app Leases this replica holds in its session, by app;
	// leaving those it hands over once idle; busy the reconciles running.
	held    map[string]*coordv1.Lease
	leaving map[string]bool
	busy    map[string]int
	// owners is each app's live holder as last seen ("" none), unowned
	// since when an app has had none, warned those logged as unowned.
	owners  map[string]string
	unowned map[string]time.Time
	warned  map[string]bool
	live    []string
	// waiting is the reason this replica has no session yet, logged once.
	waiting string
	// head is the source revision this replica last fetched (Announce),
	// written in its member Lease; known the revisions it has fetched or
	// heard of; renewNow asks the renew loop to write the Lease now.
	head     string
	known    map[string]bool
	renewNow chan struct{}
}

// sighting is a member Lease as last seen: its resourceVersion, holder,
// and when this replica first saw that resourceVersion.
type sighting struct {
	rv, holder string
	at         time.Time
}

// NewReplica returns a replica that takes part in sharding the apps once
// Run starts.
func NewReplica(o Options, apps []string) (*Replica, error) {
	if o.Identity == "" {
		return nil, errors.New("sharding: a replica needs an identity (roleout run --identity)")
	}
	if o.LeaseDuration <= 0 || o.RenewDeadline <= 0 || o.RetryPeriod <= 0 ||
		o.RenewDeadline >= o.LeaseDuration || o.RetryPeriod >= o.RenewDeadline {
		return nil, fmt.Errorf("sharding: want retry period %s < renew deadline %s < lease duration %s", o.RetryPeriod, o.RenewDeadline, o.LeaseDuration)
	}
	if o.Group == "" {
		o.Group = DefaultGroup
	}
	if o.ForgetAfter == 0 {
		o.ForgetAfter = 20 * o.LeaseDuration
	}
	var tok [8]byte
	_, _ = rand.Read(tok[:])
	r := &Replica{o: o, incarnation: hex.EncodeToString(tok[:]), kick: make(chan struct{}, 1), renewNow: make(chan struct{}, 1), known: map[string]bool{},
		seen: map[string]sighting{}, held: map[string]*coordv1.Lease{}, leaving: map[string]bool{}, busy: map[string]int{},
		owners: map[string]string{}, unowned: map[string]time.Time{}, warned: map[string]bool{}}
	r.deadline = time.AfterFunc(time.Hour, r.expire)
	r.deadline.Stop()
	r.SetApps(apps)
	return r, nil
}

// Identity is the replica's name.
func (r *Replica) Identity() string { return r.o.Identity }

// SetApps replaces the apps to share (a reloaded configuration); an app
// that left is handed back at the next step.
func (r *Replica) SetApps(apps []string) {
	r.mu.Lock()
	r.apps = slices.Clone(apps)
	r.mu.Unlock()
	r.poke()
}

// Run takes part until ctx ends, then hands every app back and deletes
// the member Lease, so that the others take over at once.
// The member Lease is renewed on a loop of its own, so that claims and
// hand-overs, however many, never delay a renewal.
func (r *Replica) Run(ctx context.Context) {
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(r.o.RetryPeriod)
		defer t.Stop()
		for {
			r.renew(ctx, time.Now())
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-r.renewNow:
			}
		}
	}()
	t := time.NewTicker(r.o.RetryPeriod)
	defer t.Stop()
	for {
		r.step(ctx)
		select {
		case <-ctx.Done():
			<-renewed
			r.leave()
			return
		case <-t.C:
		case <-r.kick:
		}
	}
}

// Begin starts a reconcile of app if this replica holds it and is not
// handing it over: the context it returns ends with ctx or with the
// session, and done must be called when the reconcile ends.
func (r *Replica) Begin(ctx context.Context, app string) (context.Context, func(), bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.session == nil || r.held[app] == nil || r.leaving[app] {
		return ctx, func() {}, false
	}
	r.busy[app]++
	actx, cancel := context.WithCancelCause(ctx)
	session := r.session
	stop := context.AfterFunc(session, func() { cancel(context.Cause(session)) })
	hold, endHold := context.WithCancel(r.fence)
	actx = context.WithValue(actx, outliveKey{}, hold)
	actx = fence.With(actx, appClaim{s: r.claim, holder: fmt.Sprintf("replica %s, app %s", r.o.Identity, app)})
	return actx, func() {
		stop()
		cancel(nil)
		endHold()
		r.mu.Lock()
		r.busy[app]--
		handOver := r.leaving[app] && r.busy[app] == 0
		r.mu.Unlock()
		if handOver {
			r.poke() // hand it over now, not at the next step
		}
	}, true
}

// errFenced ends what outlived a session once others may take its apps.
var errFenced = errors.New("sharding: the session ended and other replicas may hold its apps now")

// outliveKey is the context key of the context Outlive returns.
type outliveKey struct{}

// Outlive returns a context that is not cancelled with ctx, for work that
// must finish when a reconcile is cancelled (recording what it applied).
// When ctx comes from Begin, it still ends, with the reconcile, or once
// other replicas may take the app after its session ended, so that
// nothing of this replica's is written after another's.
func Outlive(ctx context.Context) context.Context {
	c := context.WithoutCancel(ctx)
	hold, ok := ctx.Value(outliveKey{}).(context.Context)
	if !ok {
		return c
	}
	c, cancel := context.WithCancelCause(c)
	// hold ends when the reconcile does, so this never outlives it.
	context.AfterFunc(hold, func() { cancel(context.Cause(hold)) })
	return c
}

// poke makes Run step at once.
func (r *Replica) poke() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// step reads every Lease of the group and claims or hands over apps.
func (r *Replica) step(ctx context.Context) {
	lctx, cancel := context.WithTimeout(ctx, r.o.RenewDeadline)
	list, err := r.o.Leases.List(lctx, metav1.ListOptions{LabelSelector: LabelGroup + "=" + r.o.Group})
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			r.o.Log.WithError(err).Warn("sharding: cannot list the Leases")
		}
		return
	}
	stale := r.observe(list.Items, time.Now())
	r.hear(list.Items)
	r.balance(ctx, list.Items)
	r.forget(ctx, stale)
}

// renew renews the member Lease (creating it, or taking it over from an
// earlier process of this identity once that one's has expired). A
// success starts a session when none runs and moves its deadline; a
// failure past the deadline ends it.
func (r *Replica) renew(ctx context.Context, start time.Time) {
	rctx, cancel := context.WithTimeout(ctx, r.o.RenewDeadline)
	defer cancel()
	l, err := r.writeMember(rctx, start)
	var lost []string
	r.mu.Lock()
	switch {
	case err == nil && r.session != nil && start.Sub(r.lastRenew) >= r.o.RenewDeadline:
		// Renewed after its deadline (the process was paused, and the
		// timer that ends the session has not run yet): others may
		// have taken the apps, so the session and its claims end; the
		// next renewal starts a new one.
		lost = r.endLocked(fmt.Errorf("member Lease renewed %s after the last renewal, past the renew deadline %s", start.Sub(r.lastRenew).Round(time.Millisecond), r.o.RenewDeadline))
		r.own = l
	case err == nil:
		r.own, r.lastRenew, r.waiting = l, start, ""
		if r.session == nil {
			// Not tied to Run's context: only endLocked ends a
			// session (a missed renewal, or leave).
			r.session, r.end = context.WithCancelCause(context.Background())
			fence, end := context.WithCancelCause(context.Background())
			r.fence, r.endFence = fence, func() { end(errFenced) }
			r.claim = &sessionClaim{ttl: r.o.LeaseDuration - r.o.RetryPeriod}
			r.o.Log.WithField("identity", r.o.Identity).Info("sharding: member Lease held, taking part")
			defer r.poke() // claim at once
		}
		r.claim.renewed(start)
		r.deadline.Reset(time.Until(start.Add(r.o.RenewDeadline)))
	case ctx.Err() != nil:
	case r.session != nil && time.Since(r.lastRenew) >= r.o.RenewDeadline:
		lost = r.endLocked(fmt.Errorf("member Lease not renewed for %s: %w", r.o.RenewDeadline, err))
	case r.session == nil && r.waiting != err.Error():
		r.waiting = err.Error()
		r.o.Log.WithError(err).Warn("sharding: cannot hold the member Lease yet")
	}
	r.mu.Unlock()
	r.tellLost(lost)
}

// writeMember writes this replica's member Lease, held by it from now.
func (r *Replica) writeMember(ctx context.Context, now time.Time) (*coordv1.Lease, error) {
	name := MemberLeaseName(r.o.Group, r.o.Identity)
	r.mu.Lock()
	cur := r.own
	r.mu.Unlock()
	if cur == nil {
		got, err := r.o.Leases.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			l := newLease(r.o.Group, kindMember, name, map[string]string{AnnotationIdentity: r.o.Identity, AnnotationIncarnation: r.incarnation},
				r.o.Identity, r.o.LeaseDuration, now)
			return r.o.Leases.Create(ctx, l, metav1.CreateOptions{})
		}
		if err != nil {
			return nil, err
		}
		r.mu.Lock()
		s := r.sight(got, time.Now())
		r.mu.Unlock()
		if got.Annotations[AnnotationIncarnation] != r.incarnation && holder(got) != "" && time.Since(s.at) < r.o.LeaseDuration {
			return nil, fmt.Errorf("the member Lease %s is held by another process named %s, or by this replica's previous run: waiting until it expires (%s unrenewed)",
				name, r.o.Identity, r.o.LeaseDuration)
		}
		cur = got
	}
	l := cur.DeepCopy()
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[AnnotationIdentity], l.Annotations[AnnotationIncarnation] = r.o.Identity, r.incarnation
	r.mu.Lock()
	if r.head != "" {
		l.Annotations[AnnotationSourceHead] = r.head
	}
	r.mu.Unlock()
	hold(l, r.o.Identity, r.o.LeaseDuration, now)
	upd, err := r.o.Leases.Update(ctx, l, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		r.mu.Lock()
		r.own = nil // read it again next time
		r.mu.Unlock()
	}
	return upd, err
}

// expire ends the session when its deadline passed without a renewal.
func (r *Replica) expire() {
	r.mu.Lock()
	var lost []string
	if r.session != nil && time.Since(r.lastRenew) >= r.o.RenewDeadline {
		lost = r.endLocked(fmt.Errorf("member Lease not renewed for %s", r.o.RenewDeadline))
	}
	r.mu.Unlock()
	r.tellLost(lost)
}

// endLocked ends the session: every reconcile's context is cancelled and
// no app is held. It returns the apps that were.
func (r *Replica) endLocked(cause error) []string {
	r.end(cause)
	time.AfterFunc(time.Until(r.lastRenew.Add(r.o.LeaseDuration-r.o.RetryPeriod)), r.endFence)
	r.session, r.end, r.own, r.fence, r.endFence, r.claim = nil, nil, nil, nil, nil, nil
	r.deadline.Stop()
	lost := make([]string, 0, len(r.held))
	for app := range r.held {
		lost = append(lost, app)
	}
	slices.Sort(lost)
	clear(r.held)
	clear(r.leaving)
	if errors.Is(cause, context.Canceled) {
		r.o.Log.WithField("apps", len(lost)).Info("sharding: leaving, every reconcile stopped")
	} else {
		r.o.Log.WithError(cause).WithField("apps", lost).Error("sharding: session ended, every reconcile stopped and no app held")
	}
	return lost
}

// tellLost tells Lost about apps, if any.
func (r *Replica) tellLost(apps []string) {
	if len(apps) > 0 && r.o.Lost != nil {
		r.o.Lost(apps)
	}
}
