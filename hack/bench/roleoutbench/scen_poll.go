package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/roleout/roleout/internal/testgit"
)

// mainApp is the app scenarios 1, 2, 3 and 5 share: roleout's copy in
// namespace bench-roleout, served from git repository "bench" and
// reconciled by one long-lived agent, and one copy per peer program in
// its own namespace, so that no program's field ownership gets in
// another's way.
type mainApp struct {
	repo  *testgit.Repo
	agent *benchAgent
	wl    *workload
	// peers are the peers' copies by name: kubectl, flux, flux16.
	peers map[string]*peerApp
}

// peerApp is a peer's copy of the app and its directory.
type peerApp struct {
	wl  *workload
	dir string
}

const mainName = "bench-roleout"

// peerNames are the peers of scenarios 3 to 5: kubectl, and Flux's engine
// with its default concurrency (1) and with 16.
var peerNames = []string{"kubectl", "flux", "flux16"}

// ensureMain creates the main app and installs it with the agent (not
// timed), once.
func (e *env) ensureMain(ctx context.Context) (*mainApp, error) {
	if e.main != nil {
		return e.main, nil
	}
	m := &mainApp{wl: newWorkload(mainName, true), peers: map[string]*peerApp{}}
	var err error
	if m.repo, err = e.git.NewRepo("bench"); err != nil {
		return nil, err
	}
	files := m.wl.filesAt("apps/" + mainName)
	files["README.md"] = "roleout benchmark repository\n"
	if _, err := m.repo.Commit("main", "bench app v0", files); err != nil {
		return nil, err
	}
	if err := e.createNamespace(ctx, mainName); err != nil {
		return nil, err
	}
	cfg, _, err := agentConfig(m.repo.URL(), filepath.Join(e.work, "cache-main"), mainName)
	if err != nil {
		return nil, err
	}
	if m.agent, err = newBenchAgent(cfg, e.cluster.Config, e.log); err != nil {
		return nil, err
	}
	e.logf("installing %s with the agent (not timed)", mainName)
	var c cycle
	if err := e.profiled("Install/tool=roleout-agent-cycle", func() (err error) { c, err = m.agent.runOnce(ctx); return err }); err != nil {
		return nil, fmt.Errorf("install %s: %w", mainName, err)
	}
	e.logf("  installed in %s (apply path %s, %d API requests)", c.wall.Round(1e6), c.applyPath().Round(1e6), c.api)
	e.res.add("Install/tool=roleout-agent-cycle", c.wall, c.metrics())
	e.main = m
	return m, nil
}

// ensurePeers installs each peer's copy of the app with that peer (not
// timed), once.
func (e *env) ensurePeers(ctx context.Context) (*mainApp, error) {
	m, err := e.ensureMain(ctx)
	if err != nil || len(m.peers) > 0 {
		return m, err
	}
	for _, name := range peerNames {
		p := &peerApp{wl: newWorkload("bench-"+name, true), dir: filepath.Join(e.work, "peer-"+name)}
		if err := e.createNamespace(ctx, p.wl.namespace); err != nil {
			return nil, err
		}
		if _, err := e.peerApply(ctx, name, p); err != nil {
			return nil, fmt.Errorf("install the %s copy: %w", name, err)
		}
		m.peers[name] = p
	}
	if err := e.settle(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// peerApply writes p's overlay and applies it with peer (kubectl, flux
// or flux16).
func (e *env) peerApply(ctx context.Context, peer string, p *peerApp) (toolRun, error) {
	overlay, rendered, err := e.overlay(p.wl, p.dir)
	if err != nil {
		return toolRun{}, err
	}
	switch peer {
	case "kubectl":
		return e.kubectl(ctx, false, "apply", "--server-side", "-k", overlay)
	case "flux":
		run, _, err := e.flux(ctx, rendered, 0)
		return run, err
	case "flux16":
		run, _, err := e.flux(ctx, rendered, 16)
		return run, err
	}
	return toolRun{}, fmt.Errorf("unknown peer %s", peer)
}

// idlePoll is scenario 1: cycles with no new commit.
func (e *env) idlePoll(ctx context.Context) error {
	m, err := e.ensureMain(ctx)
	if err != nil {
		return err
	}
	const name = "IdlePoll/roleout"
	for range 2 * e.pairs {
		e.git.ResetCounts()
		var c cycle
		if err := e.profiled(name, func() (err error) { c, err = m.agent.runOnce(ctx); return err }); err != nil {
			return err
		}
		counts := e.git.Counts("bench")
		mx := c.metrics()
		mx["git-ref-listings/op"] = float64(counts[testgit.RefsUpload] + counts[testgit.RefsReceive])
		mx["git-fetches/op"] = float64(counts[testgit.UploadPack])
		mx["git-pushes/op"] = float64(counts[testgit.ReceivePack])
		e.res.add(name, c.wall, mx)
	}
	s := e.res.get(name)
	refs, fetches, api, renders := s.med("git-ref-listings/op"), s.med("git-fetches/op"), s.med("api-req/op"), s.med("renders/op")
	e.res.addRow(row{num: "1", scenario: "idle poll (no new commit)", measure: "git requests per cycle",
		roleout: fmt.Sprintf("%s ref listings, %s fetches (upload-pack)", num(refs), num(fetches)), peer: "—", ratio: "—",
		target: "1 ref listing", verdict: verdict(refs == 1 && fetches == 0)})
	e.res.addRow(row{num: "1", scenario: "", measure: "API requests, renders per cycle",
		roleout: fmt.Sprintf("%s API, %s renders", num(api), num(renders)), peer: "—", ratio: "—",
		target: "0 API calls, 0 renders", verdict: verdict(api == 0 && renders == 0)})
	e.res.addRow(row{num: "1", scenario: "", measure: "wall time per cycle", roleout: fmtDur(s), peer: "—", ratio: "—", target: "report", verdict: "—"})
	return nil
}

// unrelatedCommit is scenario 2: a commit that touches no input of the
// app. API writes come from the API server's audit log (user agent
// roleout).
func (e *env) unrelatedCommit(ctx context.Context) error {
	m, err := e.ensureMain(ctx)
	if err != nil {
		return err
	}
	const name = "UnrelatedCommit/roleout"
	for i := range e.pairs {
		if _, err := m.repo.Commit("main", "docs only", map[string]string{"docs/notes.md": fmt.Sprintf("note %d\n", i)}); err != nil {
			return err
		}
		before, err := e.cluster.Writes("roleout")
		if err != nil {
			return err
		}
		var c cycle
		if err := e.profiled(name, func() (err error) { c, err = m.agent.runOnce(ctx); return err }); err != nil {
			return err
		}
		after, err := e.cluster.Writes("roleout")
		if err != nil {
			return err
		}
		mx := c.metrics()
		mx["audited-writes/op"] = float64(len(after) - len(before))
		e.res.add(name, c.wall, mx)
	}
	s := e.res.get(name)
	renders, writes := s.med("renders/op"), s.med("audited-writes/op")
	e.res.addRow(row{num: "2", scenario: "commit touching no input of the app", measure: "renders, API writes (audit log)",
		roleout: fmt.Sprintf("%s renders, %s writes", num(renders), num(writes)), peer: "—", ratio: "—",
		target: "0 and 0", verdict: verdict(renders == 0 && writes == 0)})
	e.res.addRow(row{num: "2", scenario: "", measure: "API requests (reads), wall time",
		roleout: fmt.Sprintf("%s req; %s", fmtNum(s, "api-req/op", ""), fmtDur(s)), peer: "—", ratio: "—", target: "report", verdict: "—"})
	return nil
}
