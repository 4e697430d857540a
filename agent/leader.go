package agent

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/roleout/roleout/config"
)

// RunAsLeader runs Run while this replica holds the Lease and stops
// reconciling when it loses it; it returns when ctx ends. A replica that
// loses the lease mid-rollout stops after its current step; the next
// leader resumes from the status in git. While it runs, /readyz reports a
// standby replica ready once it has read the Lease from the API server,
// and the leader ready once it has polled.
func (a *Agent) RunAsLeader(ctx context.Context, restCfg *rest.Config, le config.LeaderElection) error {
	if le.Identity == "" {
		host, _ := os.Hostname()
		le.Identity = host + "-" + strconv.Itoa(os.Getpid())
	}
	if le.LeaseDuration == 0 {
		le.LeaseDuration, le.RenewDeadline, le.RetryPeriod = 15*time.Second, 10*time.Second, 2*time.Second
	}
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return err
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, le.Namespace, le.Name, cs.CoreV1(), cs.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: le.Identity})
	if err != nil {
		return fmt.Errorf("leader election lock: %w", err)
	}
	a.elect.start()
	defer a.elect.stop()
	lock = &observedLock{Interface: lock, reached: a.elect.reached}
	for ctx.Err() == nil {
		elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: lock, LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod,
			ReleaseOnCancel: true, Name: le.Name,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) {
					if !a.elect.lead(ctx) {
						return // the lease was lost already
					}
					a.log.WithField("identity", le.Identity).Info("leading: reconciling")
					_ = a.Run(ctx)
				},
				OnStoppedLeading: func() {
					if a.elect.standBy() {
						a.log.WithField("identity", le.Identity).Info("not leading: standing by")
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

// election is this replica's part in leader election, as /readyz
// reports it. Its zero value is a replica that takes no part.
type election struct {
	mu sync.Mutex
	// running: RunAsLeader is running; seen: its elector has read (or
	// created) the Lease at least once; leading: this replica holds it.
	running, seen, leading bool
}

// start records that RunAsLeader started.
func (e *election) start() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.running, e.seen, e.leading = true, false, false
}

// stop records that RunAsLeader returned.
func (e *election) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.running, e.leading = false, false
}

// reached records that the elector read or created the Lease.
func (e *election) reached() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = true
}

// lead records that this replica leads for as long as ctx, the lease's
// context, lasts, and reports false when ctx has ended already (client-go
// starts the leader's callback on a goroutine, so it may run after the
// lease was lost; checked under the lock that standBy takes, after the
// context is cancelled).
func (e *election) lead(ctx context.Context) bool {
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
func (e *election) standBy() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	was := e.leading
	e.leading = false
	return was
}

// state reports whether leader election runs, and whether this replica
// has read the Lease and leads.
func (e *election) state() (running, seen, leading bool) {
	if e == nil {
		return false, false, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.running, e.seen, e.leading
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
