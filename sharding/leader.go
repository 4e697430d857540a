package sharding

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// LeaderOptions are the settings of leader election (sharding.mode
// leader, roleout run --leader-elect): the Lease, this replica's
// identity, and client-go's timings (defaults 15s, 10s and 2s).
type LeaderOptions struct {
	Namespace, Name, Identity                 string
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// Election is one replica's part in leader election, as readiness
// reports it. Its zero value is a replica that takes no part.
type Election struct {
	mu sync.Mutex
	// running: Run is running; seen: its elector has read (or created)
	// the Lease at least once; leading: this replica holds it.
	running, seen, leading bool
}

// Run calls lead while this replica holds the Lease o names, with a
// context that ends when it loses it, and standBy when it stops leading;
// it returns when ctx ends. A replica that loses the Lease mid-rollout
// stops after the step lead is in; the next leader resumes from what is
// recorded.
func (e *Election) Run(ctx context.Context, cs kubernetes.Interface, o LeaderOptions, lead func(context.Context), standBy func()) error {
	if o.LeaseDuration == 0 {
		o.LeaseDuration, o.RenewDeadline, o.RetryPeriod = 15*time.Second, 10*time.Second, 2*time.Second
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, o.Namespace, o.Name, cs.CoreV1(), cs.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: o.Identity})
	if err != nil {
		return fmt.Errorf("leader election lock: %w", err)
	}
	e.start()
	defer e.stop()
	lock = &observedLock{Interface: lock, reached: e.reached}
	for ctx.Err() == nil {
		elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: lock, LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline, RetryPeriod: o.RetryPeriod,
			ReleaseOnCancel: true, Name: o.Name,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) {
					if e.lead(ctx) { // not when the lease was lost already
						lead(ctx)
					}
				},
				OnStoppedLeading: func() {
					if e.standBy() {
						standBy()
					}
				},
			},
		})
		if err != nil {
			return err
		}
		elector.Run(ctx)
	}
	return nil
}

// Readiness says what /readyz reports of the election and whether the
// replica is ready, given whether it has completed a poll; electing is
// false when Run does not run (the agent then judges alone). A replica
// standing by is ready once it has read the Lease from the API server
// (else a rolling update of several replicas would wait forever for a
// standby to poll); the leader once it has polled.
func (e *Election) Readiness(polled bool) (msg string, ok, electing bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case !e.running:
		return "", false, false
	case !e.leading && !e.seen:
		return "standing by: the leader election Lease has not been read from the API server yet", false, true
	case !e.leading:
		return "ok: standing by, not leading", true, true
	case !polled:
		return "leading: no poll has completed yet", false, true
	}
	return "ok: leading", true, true
}

// start records that Run started.
func (e *Election) start() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.running, e.seen, e.leading = true, false, false
}

// stop records that Run returned.
func (e *Election) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.running, e.leading = false, false
}

// reached records that the elector read or created the Lease.
func (e *Election) reached() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = true
}

// lead records that this replica leads for as long as ctx, the lease's
// context, lasts, and reports false when ctx has ended already (client-go
// starts the leader's callback on a goroutine, so it may run after the
// lease was lost; checked under the lock that standBy takes, after the
// context is cancelled).
func (e *Election) lead(ctx context.Context) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	e.leading = true
	return true
}

// standBy records that this replica does not lead, and reports whether
// it did.
func (e *Election) standBy() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	was := e.leading
	e.leading = false
	return was
}

// observedLock is a Lease lock that calls reached whenever a read of the
// Lease reaches the API server: the record was read, or it does not exist
// yet (the elector then creates it).
type observedLock struct {
	resourcelock.Interface
	reached func()
}

// Get reads the lock's record.
func (l *observedLock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	rec, raw, err := l.Interface.Get(ctx)
	if err == nil || apierrors.IsNotFound(err) {
		l.reached()
	}
	return rec, raw, err
}
