package agent

import (
	"context"
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sharding"
)

// Owner tells which apps this replica may touch (sharding.mode:
// dynamic): Begin starts work on app when the replica holds it, with a
// context that ends when it stops holding it; done ends the work.
type Owner interface {
	Begin(ctx context.Context, app string) (actx context.Context, done func(), ok bool)
}

// begin starts work on app: with an Owner, only while this replica holds
// the app; without one, always.
func (a *Agent) begin(ctx context.Context, app string) (context.Context, func(), bool) {
	if a.owner == nil {
		return ctx, func() {}, true
	}
	return a.owner.Begin(ctx, app)
}

// RunSharded runs Run while this replica takes part in dynamic sharding
// (sharding.mode: dynamic): it reconciles and previews only the apps
// whose Leases it holds, polls at once when it gains apps, stops
// watching the apps it loses, and hands every app back when ctx ends.
// o names the replica and its lease timings; the Leases live in the
// agent's namespace.
func (a *Agent) RunSharded(ctx context.Context, restCfg *rest.Config, o sharding.Options) error {
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return err
	}
	o.Leases = cs.CoordinationV1().Leases(a.cfg.Status.ClusterRevisions.AgentNamespace())
	o.Group = a.cfg.Sharding.Name
	o.Log = a.log
	o.Gained = a.controlChanged
	o.Lost = func(apps []string) {
		for _, app := range apps {
			a.drift.Forget(app)
		}
	}
	o.Heard = func(head string) {
		a.log.WithField("revision", head).Info("another replica fetched a revision this one has not: polling now")
		a.Trigger()
	}
	r, err := sharding.NewReplica(o, appNames(a.cfg))
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.owner, a.replica = r, r
	a.mu.Unlock()
	a.metrics.shards(r)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.Run(ctx) }()
	err = a.Run(ctx)
	wg.Wait()
	return err
}

// announce tells the other replicas (sharding.Replica.Announce) the
// revision this one fetched, so that a commit one of them found, by its
// poll or a webhook, is polled by all at once.
func (a *Agent) announce(rev string) {
	a.mu.Lock()
	r := a.replica
	a.mu.Unlock()
	if r != nil {
		r.Announce(rev)
	}
}

// shardReadiness is readiness under dynamic sharding: a replica is
// ready once it holds its member Lease and its first poll has returned
// (sharded is false without dynamic sharding).
func (a *Agent) shardReadiness() (msg string, ok, sharded bool) {
	a.mu.Lock()
	r := a.replica
	a.mu.Unlock()
	if r == nil {
		return "", false, false
	}
	v := r.View()
	switch {
	case !v.Member:
		return "not a member yet: its member Lease is not held", false, true
	case !a.metrics.ready():
		return "member: no poll has completed yet", false, true
	}
	return fmt.Sprintf("ok: member %s of %d, holding %d apps", v.Identity, len(v.Members), len(v.Held)), true, true
}

// appNames returns the names of cfg's apps.
func appNames(cfg *config.Config) []string {
	out := make([]string, len(cfg.Apps))
	for i, app := range cfg.Apps {
		out[i] = app.Name
	}
	return out
}

// shards adds the sharding gauges of replica r: the apps it holds, and
// the apps it sees without a live owner.
func (m *metrics) shards(r *sharding.Replica) {
	owned := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "roleout_apps_owned", Help: "Apps whose Leases this replica holds (sharding.mode: dynamic).",
		ConstLabels: prometheus.Labels{"replica": r.Identity()}},
		func() float64 { return float64(len(r.View().Held)) })
	unowned := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "roleout_apps_unowned", Help: "Apps that no live replica holds, as this replica sees them (sharding.mode: dynamic)."},
		func() float64 {
			n := 0
			for _, o := range r.View().Owners {
				if o.Owner == "" {
					n++
				}
			}
			return float64(n)
		})
	m.registry.MustRegister(owned, unowned)
}

// ReplicaTrailer is the git trailer that names, under dynamic sharding,
// the replica that wrote a status commit.
const ReplicaTrailer = "Roleout-Replica"

// signed returns msg, a status commit's message, with a trailer naming
// this replica under dynamic sharding, so that the status branch's
// history says which replica wrote each record.
func (a *Agent) signed(msg string) string {
	a.mu.Lock()
	r := a.replica
	a.mu.Unlock()
	if r == nil {
		return msg
	}
	return msg + "\n\n" + ReplicaTrailer + ": " + r.Identity()
}
