package agent

import (
	"context"
	"os"
	"strconv"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sharding"
)

// RunAsLeader runs Run while this replica holds the Lease and stops
// reconciling when it loses it; it returns when ctx ends. A replica that
// loses the lease mid-rollout stops after its current step; the next
// leader resumes from the status in git. While it runs, /readyz reports a
// standby replica ready once it has read the Lease from the API server,
// and the leader ready once it has polled (sharding.Election).
func (a *Agent) RunAsLeader(ctx context.Context, restCfg *rest.Config, le config.LeaderElection) error {
	if le.Identity == "" {
		host, _ := os.Hostname()
		le.Identity = host + "-" + strconv.Itoa(os.Getpid())
	}
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return err
	}
	log := a.log.WithField("identity", le.Identity)
	return a.elect.Run(ctx, cs, sharding.LeaderOptions{Namespace: le.Namespace, Name: le.Name, Identity: le.Identity,
		LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod},
		func(ctx context.Context) {
			log.Info("leading: reconciling")
			_ = a.Run(ctx)
		},
		func() { log.Info("not leading: standing by") })
}
