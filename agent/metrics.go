package agent

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roleout/roleout/render"
)

// metrics are the agent's Prometheus metrics, in a registry of its own.
type metrics struct {
	registry    *prometheus.Registry
	reconcile   *prometheus.HistogramVec
	rollouts    *prometheus.CounterVec
	objects     *prometheus.CounterVec
	poll        prometheus.Histogram
	lastApplied *prometheus.GaugeVec
	// previews counts previews by result: written, deferred (left for a
	// later round by source.pullRequests' bounds), cut (by cancellation,
	// made again later); previewsWaiting is the heads the last round
	// left waiting.
	previews        *prometheus.CounterVec
	previewsWaiting prometheus.Gauge
	mu              sync.Mutex
	pollsStarted    bool
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		reconcile: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "roleout_reconcile_duration_seconds", Help: "Time to reconcile an app, render to status.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 14)}, []string{"app"}),
		rollouts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roleout_rollouts_total", Help: "Rollouts by app and result (Succeeded, Failed, Superseded)."}, []string{"app", "result"}),
		objects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roleout_objects_applied_total", Help: "Objects applied by app and action (created, configured, unchanged, recreated, deleted)."}, []string{"app", "action"}),
		poll: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "roleout_poll_duration_seconds", Help: "Time to poll the source (list refs, fetch when new).",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 14)}),
		lastApplied: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "roleout_last_applied_commit_timestamp_seconds", Help: "When the app's last commit finished rolling out (Unix time); its age is time() minus this."}, []string{"app"}),
	}
	m.previews = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "roleout_previews_total", Help: "Pull-request head previews by result: written (for one app), deferred (left for a later poll by source.pullRequests.maxHeadsPerPoll or maxTimePerPoll), cut (by cancellation; made again later)."}, []string{"result"})
	m.previewsWaiting = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "roleout_previews_waiting", Help: "Pull-request heads waiting for a preview after the last round."})
	isolated := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "roleout_render_network_isolated",
		Help: "1 when renders that may reach no host run in a network namespace of their own, 0 when the kernel allows none (render.requireNetworkIsolation)."},
		func() float64 {
			if render.NetworkIsolated() {
				return 1
			}
			return 0
		})
	m.registry.MustRegister(m.reconcile, m.rollouts, m.objects, m.poll, m.lastApplied, m.previews, m.previewsWaiting, isolated)
	return m
}

func (m *metrics) ready() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pollsStarted
}

func (m *metrics) polled(d time.Duration) {
	m.poll.Observe(d.Seconds())
	m.mu.Lock()
	m.pollsStarted = true
	m.mu.Unlock()
}
