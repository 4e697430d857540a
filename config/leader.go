package config

import "time"

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
