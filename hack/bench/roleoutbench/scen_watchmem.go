package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/roleout/roleout/internal/testgit"
)

// idleWindow is how long scenario 11 watches an idle agent: long enough
// for the Go runtime's forced collection (every 2 minutes) to run in it.
const idleWindow = 3 * time.Minute

// watchPollInterval is scenario 11's schedule: several idle polls in
// idleWindow.
const watchPollInterval = 10 * time.Second

// watchMemory is scenario 11: `roleout run` (not --once, so its
// metadata-only informers are armed) serving ten copies of the app
// (10 × 1,000 objects: 8,000 ConfigMaps and 2,000 Deployments at
// replicas 0, two informers per app), polling every 10 s. Its API
// requests go through a counting proxy (proxy.go); the process runs with
// GODEBUG=gctrace=1 for its live heap. Two phases, each followed by
// idleWindow in which nothing changes:
//
//   - install: the agent's first cycle installs all 10,000 objects, then
//     arms the watches;
//   - restart: a new process over the installed apps: nothing to apply,
//     it reads each app's status and inventory and arms the watches.
//
// For each: the peak RSS of the process (VmHWM: the install included),
// its RSS while idle (highest sample, one a second, and at the end:
// anonymous and file pages), the live heap after its last garbage
// collection, and the requests while idle:
// API requests other than watches (target 0), watches (re)started, git
// ref listings (one per poll) and fetches (0). Last, as a control, the
// peak RSS of `roleout run --once` over the installed apps: the restart
// without watches.
func (e *env) watchMemory(ctx context.Context) error {
	repo, err := e.git.NewRepo("watch")
	if err != nil {
		return err
	}
	files := map[string]string{}
	var apps []string
	for i := range 10 {
		ns := fmt.Sprintf("watch-%d", i)
		apps = append(apps, ns)
		for p, c := range newWorkload(ns, true).filesAt("apps/" + ns) {
			files[p] = c
		}
		if err := e.createNamespace(ctx, ns); err != nil {
			return err
		}
	}
	head, err := repo.Commit("main", "ten apps", files)
	if err != nil {
		return err
	}
	proxy, err := startProxy(e.cluster.Config, filepath.Join(e.work, "proxy.kubeconfig"))
	if err != nil {
		return err
	}
	defer proxy.close()
	_, text, err := agentConfig(repo.URL(), filepath.Join(e.work, "cache-watch"), apps...)
	if err != nil {
		return err
	}
	text += fmt.Sprintf("schedule: {interval: %s}\nhttp: {address: \"-\"}\nkubeconfig: %q\n", watchPollInterval, proxy.kubeconfig)
	config := filepath.Join(e.work, "watch-agent.yaml")
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		return err
	}
	for i, phase := range []string{"install", "restart"} {
		e.logf("  roleout run over 10 apps × 1,000 objects (%s)", phase)
		p, err := e.startAgent(ctx, "watch-agent-"+phase, config, "GODEBUG=gctrace=1")
		if err != nil {
			return err
		}
		err = e.watchPhase(ctx, p, proxy, repo, head, phase, apps)
		p.stop()
		if err != nil {
			return err
		}
		e.watchRows(phase, i == 0)
	}
	// The control: the same restart without watches.
	e.logf("  roleout run --once over the installed apps (no watches)")
	rss, d, _, err := peakRSS(ctx, e.roleoutBin, "run", "--once", "--config", config, "--log-level", "warn")
	if err != nil {
		return err
	}
	const series = "WatchMemory/agent-10-apps-restart-once"
	e.res.add(series, d, map[string]float64{"peak-RSS-MiB": float64(rss) / mib})
	s := e.res.get(series)
	r := reportRow("11", "control: peak RSS, `roleout run --once` over the installed apps (no watches)",
		fmt.Sprintf("%s MiB (cycle %s)", num(s.med("peak-RSS-MiB")), fmtDur(s)))
	r.target, r.verdict = "< 300 MiB", verdict(s.med("peak-RSS-MiB") < 300)
	e.res.addRow(r)
	return nil
}

// watchPhase waits for agent p to be idle with every app watched, then
// measures it for idleWindow.
func (e *env) watchPhase(ctx context.Context, p *agentProc, proxy *countingProxy, repo *testgit.Repo, head, phase string, apps []string) error {
	start := time.Now()
	if err := waitSucceeded(ctx, p, repo, head, 15*time.Minute, apps...); err != nil {
		return err
	}
	if err := p.waitLog(ctx, "watching the app's objects for drift", len(apps), 5*time.Minute); err != nil {
		return err
	}
	ready := time.Since(start)
	e.logf("    every app succeeded and watched after %s; letting it settle, then %s idle", ready.Round(time.Second), idleWindow)
	// One poll interval and a little more: the cycle that armed the last
	// watch has ended, and its status commits are in.
	if err := sleep(ctx, watchPollInterval+5*time.Second); err != nil {
		return err
	}
	proxy.reset()
	e.git.ResetCounts()
	var highest int64
	for end := time.Now().Add(idleWindow); time.Now().Before(end); {
		if err := p.alive(); err != nil {
			return err
		}
		highest = max(highest, p.mem().rss)
		if err := sleep(ctx, time.Second); err != nil {
			return err
		}
	}
	watches, others, summary := proxy.counts()
	counts := e.git.Counts("watch")
	m := p.mem()
	live, gcAt, ok := p.lastGC()
	if !ok {
		live = -1
	}
	if others > 0 {
		e.logf("    API requests other than watches while idle: %s", summary)
	}
	e.logf("    peak RSS %.0f MiB; idle RSS up to %.0f MiB, %.0f MiB at the end (%.0f anonymous, %.0f file); live heap %.0f MiB after the last GC, %s before the end",
		float64(m.peak)/mib, float64(highest)/mib, float64(m.rss)/mib, float64(m.anon)/mib, float64(m.file)/mib, live, (time.Since(start) - gcAt).Round(time.Second))
	e.res.add("WatchMemory/agent-10-apps-"+phase, ready, map[string]float64{
		"peak-RSS-MiB": float64(m.peak) / mib, "idle-RSS-MiB": float64(highest) / mib, "end-RSS-MiB": float64(m.rss) / mib,
		"end-anon-MiB": float64(m.anon) / mib, "end-file-MiB": float64(m.file) / mib, "live-heap-MiB": live,
		"idle-api-req": float64(others), "idle-watch-starts": float64(watches),
		"idle-git-ref-listings": float64(counts[testgit.RefsUpload] + counts[testgit.RefsReceive]),
		"idle-git-fetches":      float64(counts[testgit.UploadPack]), "idle-git-pushes": float64(counts[testgit.ReceivePack]),
	})
	return nil
}

// watchRows adds scenario 11's rows for phase.
func (e *env) watchRows(phase string, first bool) {
	s := e.res.get("WatchMemory/agent-10-apps-" + phase)
	what := map[string]string{
		"install": "first cycle installs all 10,000 objects",
		"restart": "restarted over the installed apps (nothing to apply)",
	}[phase]
	peak, idle := s.med("peak-RSS-MiB"), s.med("idle-RSS-MiB")
	x := row{num: "11", measure: "peak RSS (VmHWM), `roleout run` watching 10 apps × 1,000 objects: " + what,
		roleout: fmt.Sprintf("%s MiB (apps watched after %s)", num(peak), fmtDur(s)), peer: "—", ratio: "—",
		target: "< 300 MiB", verdict: verdict(peak < 300)}
	if first {
		x.scenario = "memory and requests while watching"
	}
	e.res.addRow(x)
	r := reportRow("11", fmt.Sprintf("RSS idle (%s, polls every %s), %s: highest; at the end (anonymous + file)", idleWindow, watchPollInterval, phase),
		fmt.Sprintf("%s MiB; %s MiB (%s + %s)", num(idle), num(s.med("end-RSS-MiB")), num(s.med("end-anon-MiB")), num(s.med("end-file-MiB"))))
	r.target, r.verdict = "< 300 MiB", verdict(idle < 300)
	e.res.addRow(r)
	if live := s.med("live-heap-MiB"); live >= 0 {
		e.res.addRow(reportRow("11", "Go live heap after the last GC (GODEBUG=gctrace=1), "+phase, num(live)+" MiB"))
	}
	polls, fetches, pushes := s.med("idle-git-ref-listings"), s.med("idle-git-fetches"), s.med("idle-git-pushes")
	api, watches := s.med("idle-api-req"), s.med("idle-watch-starts")
	ok := api == 0 && fetches == 0 && pushes == 0 && polls > 0
	r = reportRow("11", fmt.Sprintf("requests idle (%s), %s: API besides watches; watches (re)started; git", idleWindow, phase),
		fmt.Sprintf("%s API, %s watches; %s ref listings, %s fetches, %s pushes", num(api), num(watches), num(polls), num(fetches), num(pushes)))
	r.target, r.verdict = "0 API; 1 ref listing a poll", verdict(ok)
	e.res.addRow(r)
}
