package agent

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// LeaderElection makes several replicas of the agent take turns: only
// the holder of a Lease reconciles.
type LeaderElection struct {
	// Namespace and Name of the Lease.
	Namespace, Name string
	// Identity of this replica; default the host name and process ID.
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod are client-go's;
	// defaults 15s, 10s and 2s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// RunAsLeader runs Run while this replica holds the Lease and stops
// reconciling when it loses it; it returns when ctx ends. A replica that
// loses the lease mid-rollout stops after its current step; the next
// leader resumes from the status in git.
func (a *Agent) RunAsLeader(ctx context.Context, restCfg *rest.Config, le LeaderElection) error {
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
	for ctx.Err() == nil {
		elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: lock, LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod,
			ReleaseOnCancel: true, Name: le.Name,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) {
					a.log.WithField("identity", le.Identity).Info("leading: reconciling")
					_ = a.Run(ctx)
				},
				OnStoppedLeading: func() { a.log.WithField("identity", le.Identity).Info("not leading: standing by") },
			},
		})
		if err != nil {
			return err
		}
		elector.Run(ctx)
	}
	return nil
}

// Shard keeps only the apps of shard i of n, by a stable hash of the app
// name, so n agents split the apps between them.
func (c *Config) Shard(i, n int) error {
	if n < 1 || i < 0 || i >= n {
		return fmt.Errorf("invalid shard %d/%d: want i/n with 0 <= i < n", i, n)
	}
	var kept []AppConfig
	for _, a := range c.Apps {
		h := fnv.New32a()
		h.Write([]byte(a.Name))
		if int(h.Sum32()%uint32(n)) == i {
			kept = append(kept, a)
		}
	}
	c.Apps = kept
	return nil
}

// ParseShard parses "i/n".
func ParseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("invalid --shard %q: want i/n, such as 0/3", s)
	}
	return i, n, nil
}
