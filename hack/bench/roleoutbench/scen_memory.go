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
	"syscall"
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
	return 0
}

// peakRSS runs a program to its end and returns its peak resident set
// size in bytes (the kernel's maxrss of the child), its run time and its
// standard output.
func peakRSS(ctx context.Context, env []string, name string, args ...string) (int64, time.Duration, string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, d, "", fmt.Errorf("%s %s: %w: %s", filepath.Base(name), strings.Join(args, " "), err, lastLines(stderr.String(), 8))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, d, "", fmt.Errorf("no resource usage for %s", name)
	}
	return ru.Maxrss * 1024, d, stdout.String(), nil
}

const mib = 1 << 20

// memory is scenario 8: the peak RSS of `roleout run --once` serving ten
// copies of the app (its first cycle installs 10,000 objects; the second
// is idle), and of the first fetch of repositories of 5,000 and 50,000
// small files.
func (e *env) memory(ctx context.Context) error {
	if err := e.agentMemory(ctx); err != nil {
		return err
	}
	for _, n := range []int{5000, 50000} {
		if err := e.cloneMemory(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// agentMemory runs bin/roleout over a config of ten apps, twice.
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
	config := filepath.Join(e.work, "mem-agent.yaml")
	if err := os.WriteFile(config, []byte(text+fmt.Sprintf("kubeconfig: %q\n", e.cluster.Kubeconfig)), 0o644); err != nil {
		return err
	}
	for _, phase := range []string{"install", "idle"} {
		e.logf("  roleout run --once over 10 apps (%s)", phase)
		rss, d, _, err := peakRSS(ctx, nil, e.roleoutBin, "run", "--once", "--config", config, "--log-level", "warn")
		if err != nil {
			return err
		}
		e.res.add("Memory/agent-10-apps-"+phase, d, map[string]float64{"peak-RSS-MiB": float64(rss) / mib})
	}
	in, idle := e.res.get("Memory/agent-10-apps-install"), e.res.get("Memory/agent-10-apps-idle")
	e.res.addRow(row{num: "8", scenario: "memory", measure: "peak RSS, `roleout run --once`, 10 apps × 1,000 objects: first cycle (installs all)",
		roleout: fmt.Sprintf("%s MiB (cycle %s)", num(in.med("peak-RSS-MiB")), fmtDur(in)), peer: "—", ratio: "—",
		target: "< 300 MiB", verdict: verdict(in.med("peak-RSS-MiB") < 300)})
	e.res.addRow(row{num: "8", measure: "peak RSS, same, idle cycle (new process, nothing changed)",
		roleout: fmt.Sprintf("%s MiB (cycle %s)", num(idle.med("peak-RSS-MiB")), fmtDur(idle)), peer: "—", ratio: "—",
		target: "< 300 MiB", verdict: verdict(idle.med("peak-RSS-MiB") < 300)})
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
	rss, d, out, err := peakRSS(ctx, nil, e.self, fetchCommand, repo.URL(), filepath.Join(e.work, "cache-"+name))
	if err != nil {
		return err
	}
	fields := strings.Fields(out)
	if len(fields) == 2 {
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
