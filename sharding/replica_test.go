package sharding

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	coordclient "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/roleout/roleout/internal/testcluster"
)

var cluster *testcluster.Cluster

func TestMain(m *testing.M) {
	opts := testcluster.DefaultOptions()
	opts.Nodes = 0
	os.Exit(testcluster.Main(m, opts, &cluster))
}

// world is replicas sharing apps in a namespace of their own, with a
// referee that records who reconciles what, and in which order replicas
// lost and gained apps.
type world struct {
	t    *testing.T
	ns   string
	cs   kubernetes.Interface
	apps []string

	mu       sync.Mutex
	inUse    map[string]string // app → replica reconciling it now
	overlaps []string
	events   []event
	// outlived is how long each reconcile cut short by the end of its
	// session went on recording (until Outlive's context ended).
	outlived []time.Duration
	// heard are the revisions each replica was told of (Options.Heard).
	heard map[string][]string
}

type event struct {
	replica, app string
	gained       bool
}

func newWorld(t *testing.T, n int) *world {
	c := testcluster.Require(t, cluster)
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	ns := fmt.Sprintf("shard-%d", time.Now().UnixNano()%1e9)
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &world{t: t, ns: ns, cs: cs, apps: apps(n), inUse: map[string]string{}, heard: map[string][]string{}}
}

// cutOff is a Lease client that fails every call while off is set: a
// replica cut off from the API server.
type cutOff struct {
	coordclient.LeaseInterface
	off atomic.Bool
}

var errCutOff = errors.New("connection dropped")

func (c *cutOff) Get(ctx context.Context, name string, o metav1.GetOptions) (*coordv1.Lease, error) {
	if c.off.Load() {
		return nil, errCutOff
	}
	return c.LeaseInterface.Get(ctx, name, o)
}

func (c *cutOff) List(ctx context.Context, o metav1.ListOptions) (*coordv1.LeaseList, error) {
	if c.off.Load() {
		return nil, errCutOff
	}
	return c.LeaseInterface.List(ctx, o)
}

func (c *cutOff) Create(ctx context.Context, l *coordv1.Lease, o metav1.CreateOptions) (*coordv1.Lease, error) {
	if c.off.Load() {
		return nil, errCutOff
	}
	return c.LeaseInterface.Create(ctx, l, o)
}

func (c *cutOff) Update(ctx context.Context, l *coordv1.Lease, o metav1.UpdateOptions) (*coordv1.Lease, error) {
	if c.off.Load() {
		return nil, errCutOff
	}
	return c.LeaseInterface.Update(ctx, l, o)
}

// member is one replica of the world, with its reconcile loops.
type member struct {
	*Replica
	leases *cutOff
	stop   context.CancelFunc
	done   chan struct{}
}

// start starts a replica named id whose workers reconcile every app it
// holds over and over, each reconcile checked by the referee.
func (w *world) start(id string) *member {
	leases := &cutOff{LeaseInterface: w.cs.CoordinationV1().Leases(w.ns)}
	log := logrus.New()
	log.SetOutput(testWriter{w.t})
	log.SetLevel(logrus.ErrorLevel)
	// Timings loose enough for a loaded machine running the race detector:
	// a session must not end for a slow API server.
	// (A renew deadline of 4 s was too short for CI's loaded machine.)
	r, err := NewReplica(Options{Leases: leases, Identity: id, LeaseDuration: 10 * time.Second, RenewDeadline: 7 * time.Second,
		RetryPeriod: 500 * time.Millisecond, ForgetAfter: 15 * time.Second, Log: log.WithField("replica", id),
		Gained: func(apps []string) { w.record(id, apps, true) },
		Lost:   func(apps []string) { w.record(id, apps, false) },
		Heard: func(head string) {
			w.mu.Lock()
			w.heard[id] = append(w.heard[id], head)
			w.mu.Unlock()
		}}, w.apps)
	if err != nil {
		w.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &member{Replica: r, leases: leases, stop: cancel, done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.Run(ctx) }()
	for _, app := range w.apps {
		wg.Add(1)
		go func() { defer wg.Done(); w.work(ctx, r, id, app) }()
	}
	go func() { wg.Wait(); close(m.done) }()
	w.t.Cleanup(func() { cancel(); <-m.done })
	return m
}

// work reconciles app on replica id whenever it may, until ctx ends.
func (w *world) work(ctx context.Context, r *Replica, id, app string) {
	for ctx.Err() == nil {
		actx, done, ok := r.Begin(ctx, app)
		if !ok {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		w.mu.Lock()
		if other, busy := w.inUse[app]; busy {
			w.overlaps = append(w.overlaps, fmt.Sprintf("%s reconciled by %s and %s at once", app, other, id))
		}
		w.inUse[app] = id
		w.mu.Unlock()
		select { // a reconcile: it ends early when its context does
		case <-actx.Done():
		case <-time.After(30 * time.Millisecond):
		}
		if actx.Err() != nil && !errors.Is(context.Cause(actx), context.Canceled) {
			// The session ended: record its progress for as long as
			// Outlive allows, as a rollout's checkpoint does.
			cut := time.Now()
			<-Outlive(actx).Done()
			w.mu.Lock()
			w.outlived = append(w.outlived, time.Since(cut))
			w.mu.Unlock()
		}
		w.mu.Lock()
		delete(w.inUse, app)
		w.mu.Unlock()
		done()
	}
}

func (w *world) record(id string, apps []string, gained bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, app := range apps {
		w.events = append(w.events, event{replica: id, app: app, gained: gained})
	}
}

// settled waits until the members hold every app, each exactly once,
// each member some, each app where Assign over the members puts it, and
// the app Leases say the same; it returns who holds what.
func (w *world) settled(members ...*member) map[string]string {
	w.t.Helper()
	var last string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		held := map[string]string{}
		dup := ""
		for _, m := range members {
			for _, app := range m.View().Held {
				if h, ok := held[app]; ok {
					dup = app + " held by " + h + " and " + m.Identity()
				}
				held[app] = m.Identity()
			}
		}
		if dup != "" {
			w.t.Fatalf("two replicas hold one app: %s", dup)
		}
		owners, err := Owners(context.Background(), w.cs.CoordinationV1().Leases(w.ns), "", w.apps, time.Now())
		if err != nil {
			w.t.Fatal(err)
		}
		agree := len(held) == len(w.apps) && len(count(held)) == len(members)
		var ids []string
		for _, m := range members {
			ids = append(ids, m.Identity())
		}
		for _, app := range w.apps {
			// Settled is where Assign puts every app, not a step on
			// the way (an app held by one replica because it did not
			// see another live yet).
			if owners[app].Owner != held[app] || held[app] != Assign(app, ids) {
				agree = false
			}
		}
		if agree {
			return held
		}
		last = fmt.Sprintf("held %d of %d apps: %v", len(held), len(w.apps), held)
	}
	w.t.Fatalf("the replicas did not settle: %s", last)
	return nil
}

func (w *world) checkNoOverlap() {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.overlaps) > 0 {
		w.t.Fatalf("%d reconciles overlapped, first: %s", len(w.overlaps), w.overlaps[0])
	}
}

// count returns how many apps each replica holds.
func count(held map[string]string) map[string]int {
	n := map[string]int{}
	for _, id := range held {
		n[id]++
	}
	return n
}

// TestReplicasShareApps runs replicas against the real API server: 3
// share 30 apps, each held by exactly one, as the Leases say; a fourth
// joins and takes about a quarter; one is cut off from the API server
// and stops (ends every reconcile, holds nothing) before any other takes
// one of its apps, and what it records after that (Outlive) ends before
// too; one leaves and hands its apps over. The referee sees no app
// reconciled by two replicas at any time.
func TestReplicasShareApps(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 30)
	a, b, c := w.start("replica-a"), w.start("replica-b"), w.start("replica-c")
	held := w.settled(a, b, c)
	t.Logf("3 replicas: %v", count(held))
	for _, id := range []string{"replica-a", "replica-b", "replica-c"} {
		if count(held)[id] == 0 {
			t.Errorf("%s holds no app of 30: %v", id, count(held))
		}
	}

	d := w.start("replica-d")
	after := w.settled(a, b, c, d)
	moved := 0
	for app, id := range after {
		if id != held[app] {
			moved++
			if id != "replica-d" {
				t.Errorf("%s moved from %s to %s when replica-d joined", app, held[app], id)
			}
		}
	}
	if moved == 0 || moved > 15 {
		t.Errorf("replica-d took %d of 30 apps, want about a quarter", moved)
	}
	w.checkNoOverlap()

	// Cut replica-b off: it ends its session before its Lease expires;
	// the others take its apps only after that.
	w.mu.Lock()
	from := len(w.events)
	w.mu.Unlock()
	b.leases.off.Store(true)
	rest := w.settled(a, c, d)
	if v := b.View(); v.Member || len(v.Held) > 0 {
		t.Errorf("the cut-off replica still takes part: %+v", v)
	}
	w.mu.Lock()
	lostAt := map[string]int{}
	for i, e := range w.events[from:] {
		switch {
		case e.replica == "replica-b" && !e.gained:
			lostAt[e.app] = i
		case e.gained && after[e.app] == "replica-b":
			if at, ok := lostAt[e.app]; !ok || at > i {
				t.Errorf("%s gained %s before the cut-off replica-b let it go", e.replica, e.app)
			}
		}
	}
	w.mu.Unlock()
	for app, id := range after {
		if id == "replica-b" && rest[app] == "replica-b" {
			t.Errorf("%s still held by the cut-off replica", app)
		}
	}
	w.checkNoOverlap()
	// Its cut-short reconciles went on recording after the session ended
	// (a lease less the renew deadline and a retry period, here 2.5 s), and stopped
	// before another replica took the app (no overlap above).
	w.mu.Lock()
	if len(w.outlived) == 0 || slices.Max(w.outlived) < time.Second {
		t.Errorf("the cut-off replica's reconciles recorded for %v after its session ended, want about 2.5 s", w.outlived)
	}
	w.mu.Unlock()

	// replica-a leaves: it hands its apps over.
	a.stop()
	<-a.done
	final := w.settled(c, d)
	if n := count(final); n["replica-c"]+n["replica-d"] != 30 {
		t.Errorf("after replica-a left: %v", n)
	}
	if _, err := w.cs.CoordinationV1().Leases(w.ns).Get(context.Background(), MemberLeaseName(DefaultGroup, "replica-a"), metav1.GetOptions{}); err == nil {
		t.Errorf("replica-a left its member Lease behind")
	}
	w.checkNoOverlap()
}

// TestOneIdentityOneMember starts two replicas with one identity: the
// second takes no part while the first renews its member Lease.
func TestOneIdentityOneMember(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 4)
	first := w.start("same")
	w.settled(first)
	second := w.start("same")
	time.Sleep(2 * time.Second) // several retry periods: the second must stay out
	if v := second.View(); v.Member || len(v.Held) > 0 {
		t.Fatalf("a second process named like the first takes part: %+v", v)
	}
	if v := first.View(); !v.Member || len(v.Held) != 4 {
		t.Fatalf("the first replica was disturbed: %+v", v)
	}
	w.checkNoOverlap()
	// When the first dies (cut off), the second takes over once its Lease
	// expired.
	first.leases.off.Store(true)
	w.settled(second)
	w.checkNoOverlap()
}

// TestForgetsDeadMembers: the member Lease of a replica that died (here
// never renewed) is deleted once it stayed unchanged for ForgetAfter; a
// live one's is kept.
func TestForgetsDeadMembers(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 2)
	leases := w.cs.CoordinationV1().Leases(w.ns)
	ghost := newLease(DefaultGroup, kindMember, MemberLeaseName(DefaultGroup, "ghost"), map[string]string{AnnotationIdentity: "ghost"},
		"ghost", 6*time.Second, time.Now().Add(-time.Hour))
	if _, err := leases.Create(context.Background(), ghost, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	alive := w.start("alive")
	w.settled(alive)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if _, err := leases.Get(context.Background(), ghost.Name, metav1.GetOptions{}); err != nil {
			break
		}
	}
	if _, err := leases.Get(context.Background(), ghost.Name, metav1.GetOptions{}); err == nil {
		t.Errorf("the dead member's Lease is still there")
	}
	if _, err := leases.Get(context.Background(), MemberLeaseName(DefaultGroup, "alive"), metav1.GetOptions{}); err != nil {
		t.Errorf("the live member's Lease: %v", err)
	}
}

// testWriter sends a logger's lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
