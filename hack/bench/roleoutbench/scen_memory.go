package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/roleout/roleout/sources"
)

// fetchCommand is the subcommand the memory scenario runs in a child
// process: one sources.GitSource.Fetch of a repository into a fresh
// cache, so that its peak RSS is the fetch's own.
const fetchCommand = "fetch-once"

// fetchMain is `roleoutbench fetch-once URL CACHEDIR`: it fetches the
// branch main of URL and prints the time it took and the number of paths.
func fetchMain(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: roleoutbench fetch-once URL CACHEDIR")
		return 2
	}
	src, err := sources.NewGitSource(sources.Options{URL: args[0], Ref: sources.Ref{Branch: "main"}, CacheDir: args[1]})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	start := time.Now()
	snap, err := src.Fetch(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("%d %d\n", time.Since(start).Nanoseconds(), len(snap.Index))
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		fmt.Printf("VmHWM: %d kB\n", vmHWM(string(data))/1024)
	}
	return 0
}

// peakRSS runs a program to its end and returns its peak resident set
// size in bytes, its run time and its standard output. The peak is the
// kernel's high-water mark VmHWM of the program's memory, read from
// /proc/PID/status every 10 ms while it runs, and also from a last line
// "VmHWM: N kB" the program may print itself. (The child's rusage
// maxrss is no good here: Go starts children with vfork, so it counts
// this process's own RSS at the exec.)
func peakRSS(ctx context.Context, name string, args ...string) (int64, time.Duration, string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var err error
wait:
	for {
		if data, rerr := os.ReadFile(status); rerr == nil {
			peak = max(peak, vmHWM(string(data)))
		}
		select {
		case err = <-done:
			break wait
		case <-tick.C:
		}
	}
	d := time.Since(start)
	if err != nil {
		return 0, d, "", fmt.Errorf("%s %s: %w: %s", filepath.Base(name), strings.Join(args, " "), err, lastLines(stderr.String(), 8))
	}
	peak = max(peak, vmHWM(stdout.String()))
	return peak, d, stdout.String(), nil
}

// vmHWM returns the value of a "VmHWM: N kB" line of text in bytes, 0
// when there is none.
func vmHWM(text string) int64 {
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

const mib = 1 << 20

// memory is scenario 8: the peak RSS of `roleout run --once` serving ten
// copies of the app, and of the first fetch of repositories of 100
// (the baseline), 5,000 and 50,000 small files. By default the ten apps are paused: the cycle
// fetches, renders and plans all ten (10,000 objects, 2,000 predictions)
// and commits their status, but applies nothing; with -full-install it
// installs all 10,000 objects (about six minutes here, most of it in
// observing the Deployments), then runs an idle cycle.
func (e *env) memory(ctx context.Context) error {
	if err := e.agentMemory(ctx); err != nil {
		return err
	}
	for _, n := range []int{100, 5000, 50000} {
		if err := e.cloneMemory(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// agentMemory runs bin/roleout over a config of ten apps.
func (e *env) agentMemory(ctx context.Context) error {
	repo, err := e.git.NewRepo("mem")
	if err != nil {
		return err
	}
	files := map[string]string{}
	var apps []string
	for i := range 10 {
		ns := fmt.Sprintf("mem-%d", i)
		apps = append(apps, ns)
		for p, c := range newWorkload(ns, true).filesAt("apps/" + ns) {
			files[p] = c
		}
		if err := e.createNamespace(ctx, ns); err != nil {
			return err
		}
	}
	if _, err := repo.Commit("main", "ten apps", files); err != nil {
		return err
	}
	_, text, err := agentConfig(repo.URL(), filepath.Join(e.work, "cache-mem"), apps...)
	if err != nil {
		return err
	}
	phases := []string{"install", "idle"}
	if !e.fullInstall {
		text = strings.ReplaceAll(text, "timeout: 3m}", "timeout: 3m, paused: true}")
		phases = []string{"plan-only"}
	}
	config := filepath.Join(e.work, "mem-agent.yaml")
	if err := os.WriteFile(config, []byte(text+fmt.Sprintf("kubeconfig: %q\n", e.cluster.Kubeconfig)), 0o644); err != nil {
		return err
	}
	what := map[string]string{
		"plan-only": "first cycle, apps paused (fetch, render, plan, status; no apply)",
		"install":   "first cycle, installs all 10,000 objects",
		"idle":      "next cycle in a new process, nothing changed",
	}
	for i, phase := range phases {
		e.logf("  roleout run --once over 10 apps (%s)", phase)
		rss, d, _, err := peakRSS(ctx, e.roleoutBin, "run", "--once", "--config", config, "--log-level", "warn")
		if err != nil {
			return err
		}
		series := "Memory/agent-10-apps-" + phase
		e.res.add(series, d, map[string]float64{"peak-RSS-MiB": float64(rss) / mib})
		s := e.res.get(series)
		x := row{num: "8", measure: "peak RSS, `roleout run --once`, 10 apps × 1,000 objects: " + what[phase],
			roleout: fmt.Sprintf("%s MiB (cycle %s)", num(s.med("peak-RSS-MiB")), fmtDur(s)), peer: "—", ratio: "—",
			target: "< 300 MiB", verdict: verdict(s.med("peak-RSS-MiB") < 300)}
		if i == 0 {
			x.scenario = "memory"
		}
		e.res.addRow(x)
	}
	return nil
}

// cloneMemory makes a repository of n small files with the git program
// and measures the first sources.GitSource.Fetch of it in a child process.
func (e *env) cloneMemory(ctx context.Context, n int) error {
	name := fmt.Sprintf("files-%d", n)
	repo, err := e.git.NewRepo(name)
	if err != nil {
		return err
	}
	files := make(map[string]string, n)
	for i := range n {
		files[fmt.Sprintf("tree/d%03d/f%05d.yaml", i/500, i)] = fmt.Sprintf("name: f-%05d\nvalue: %d\nnote: a small file of a large repository\n", i, i*7919)
	}
	e.logf("  committing %d files", n)
	if _, err := repo.Commit("main", fmt.Sprintf("%d files", n), files); err != nil {
		return err
	}
	size, err := dirSize(repo.BarePath())
	if err != nil {
		return err
	}
	series := "Memory/first-fetch-" + strconv.Itoa(n) + "-files"
	rss, d, out, err := peakRSS(ctx, e.self, fetchCommand, repo.URL(), filepath.Join(e.work, "cache-"+name))
	if err != nil {
		return err
	}
	if fields := strings.Fields(out); len(fields) >= 2 {
		if ns, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			d = time.Duration(ns)
		}
	}
	e.res.add(series, d, map[string]float64{"peak-RSS-MiB": float64(rss) / mib, "repo-MiB": float64(size) / mib})
	s := e.res.get(series)
	e.res.addRow(row{num: "8", measure: fmt.Sprintf("peak RSS, first fetch + checkout of a %s-file repository (%.1f MiB on the server)", num(float64(n)), float64(size)/mib),
		roleout: fmt.Sprintf("%s MiB (fetch %s)", num(s.med("peak-RSS-MiB")), fmtDur(s)), peer: "—", ratio: "—", target: "bounded", verdict: "see text"})
	return nil
}

// dirSize returns the bytes of the files under dir.
func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			total += info.Size()
		}
		return err
	})
	return total, err
}
