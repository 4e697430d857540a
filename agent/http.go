package agent

import (
	"io"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/webhook"
)

// Handler returns the agent's HTTP endpoints: /healthz (503 with the
// reason while the running loop has not completed a poll within
// healthz.maxPollAge; a standby replica, whose loop does not run, is
// healthy), /readyz (see readiness), /metrics (Prometheus) and, with a
// secret, POST /hook, which triggers a poll when its HMAC signature is
// good (package webhook).
func (a *Agent) Handler(hookSecret []byte) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if err := a.live.Check(a.deps.now()); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		msg, ok := a.readiness()
		if !ok {
			http.Error(w, msg, http.StatusServiceUnavailable)
			return
		}
		if err := render.NetworkIsolation(""); err != nil {
			msg += "; renders are not network-isolated (previews refuse to render unless render.requireNetworkIsolation is false): " + err.Error()
		}
		_, _ = io.WriteString(w, msg+"\n")
	})
	mux.Handle("/metrics", promhttp.HandlerFor(a.metrics.registry, promhttp.HandlerOpts{}))
	if len(hookSecret) > 0 {
		mux.Handle("/hook", webhook.NewHandler(hookSecret, a.Trigger, nil))
	}
	return mux
}

// readiness is what /readyz reports, on one line, and whether the
// replica is ready: under dynamic sharding, its membership; in leader
// election, what sharding.Election says (a standby is ready once it has
// read the Lease); otherwise, once its first fetch has returned.
func (a *Agent) readiness() (string, bool) {
	if msg, ok, sharded := a.shardReadiness(); sharded {
		return msg, ok
	}
	polled := a.metrics.ready()
	if msg, ok, electing := a.elect.Readiness(polled); electing {
		return msg, ok
	}
	if !polled {
		return "no poll has completed yet", false
	}
	return "ok", true
}
