// Command roleoutbench is roleout's benchmark (issue 10, `make bench`):
// on the local control plane (internal/testcluster) and the test git
// server (internal/testgit) it measures roleout's agent and apply engine
// side by side with `kubectl apply --server-side -k` and with Flux's apply
// engine (fluxcd/pkg/ssa, built from the separate module hack/bench/flux),
// and against the API server's raw server-side-apply throughput; it also
// times how fast `roleout run` heals drift its watches see (scenario 10),
// what its watches cost in memory and requests (scenario 11), and how
// replicas sharing 100 apps by dynamic sharding converge (scenario 12),
// how a flood of pull requests slows a rollout (scenario 13), and what
// 1,000 small apps cost the status branch with 1 and 3 replicas
// (scenario 14).
//
//	go run ./hack/bench/roleoutbench [-pairs 5] [-only 1,3] [-out out/bench.txt] [-cpuprofile DIR]
//
// The workload is one app of 1,000 objects (800 ConfigMaps, 200
// Deployments at replicas 0) in four roles of 250. Where a scenario
// compares programs, they run alternated (A B, then B A) for -pairs
// rounds ($BENCH_PAIRS, default 5), and the table gives medians with
// min–max. Every sample is also written in the Go benchmark format to
// -out, for benchstat.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// env is what every scenario uses: the cluster, the git server, the peer
// programs and the results.
type env struct {
	root, work, kubeHome            string
	kubectlBin, fluxBin, roleoutBin string
	self                            string
	pairs                           int
	cluster                         *testcluster.Cluster
	git                             *testgit.Server
	res                             *results
	log                             *logrus.Logger
	profileDir                      string
	profiles                        map[string]int
	// fullInstall makes scenario 8's agent install its ten apps.
	fullInstall bool
	// revision is the roleout source measured: git describe --dirty.
	revision string
	main     *mainApp
	out      io.Writer
}

// scenario is one row group of the table.
type scenario struct {
	num  int
	name string
	// cluster says the scenario needs the control plane.
	cluster bool
	run     func(*env, context.Context) error
}

var scenarios = []scenario{
	{9, "prediction", false, (*env).prediction},
	{6, "render", false, (*env).renderTime},
	{1, "idle poll", true, (*env).idlePoll},
	{2, "unrelated commit", true, (*env).unrelatedCommit},
	{3, "one role changed", true, (*env).roleChange},
	{5, "no-op reconcile with drift detection", true, (*env).noopDrift},
	{4, "first install", true, (*env).firstInstall},
	{7, "the limit", true, (*env).limit},
	{8, "memory", true, (*env).memory},
	{10, "drift heal", true, (*env).drift},
	{11, "memory and requests while watching", true, (*env).watchMemory},
	{12, "scale-out", true, (*env).scaleOut},
	{13, "previews flood", true, (*env).previewFlood},
	{14, "1,000 apps × 5 objects", true, (*env).wide},
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == fetchCommand {
		os.Exit(fetchMain(os.Args[2:]))
	}
	pairs := 5
	if v, err := strconv.Atoi(os.Getenv("BENCH_PAIRS")); err == nil && v > 0 {
		pairs = v
	}
	flag.IntVar(&pairs, "pairs", pairs, "rounds of alternated measurements ($BENCH_PAIRS)")
	only := flag.String("only", "", "comma-separated scenario numbers to run (default all)")
	out := flag.String("out", "out/bench.txt", "benchmark-format output for benchstat (relative to the module root)")
	profile := flag.String("cpuprofile", "", "directory for CPU profiles of roleout's in-process measurements")
	fullInstall := flag.Bool("full-install", false, "scenario 8: let the ten-app agent install its apps (about six minutes more)")
	keep := flag.Bool("keep", false, "keep the work directory (the agents' logs, their caches) and print where it is")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, pairs, *only, *out, *profile, *fullInstall, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "roleoutbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, pairs int, only, out, profile string, fullInstall, keep bool) error {
	root, err := testcluster.ModuleRoot()
	if err != nil {
		return err
	}
	e := &env{root: root, pairs: pairs, res: newResults(), profiles: map[string]int{}, out: os.Stdout, fullInstall: fullInstall,
		kubectlBin: filepath.Join(root, "bin", "kubectl")}
	if e.work, err = os.MkdirTemp("", "roleoutbench-"); err != nil {
		return err
	}
	if keep {
		defer fmt.Printf("the work directory is kept: %s\n", e.work)
	} else {
		defer os.RemoveAll(e.work)
	}
	e.kubeHome = filepath.Join(e.work, "kube-home")
	if err := os.MkdirAll(e.kubeHome, 0o755); err != nil {
		return err
	}
	if profile != "" {
		if e.profileDir, err = filepath.Abs(profile); err != nil {
			return err
		}
		if err := os.MkdirAll(e.profileDir, 0o755); err != nil {
			return err
		}
	}
	if e.self, err = os.Executable(); err != nil {
		return err
	}
	e.log = logrus.New()
	logFile, err := os.Create(filepath.Join(e.work, "agent.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	e.log.SetOutput(logFile)
	e.log.SetLevel(logrus.WarnLevel)
	e.revision = gitRevision(root)
	selected, needCluster := pick(only)
	started := time.Now()
	if err := e.setup(ctx, needCluster); err != nil {
		return err
	}
	defer e.teardown()
	for _, s := range selected {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t := time.Now()
		e.logf("scenario %d: %s", s.num, s.name)
		if err := s.run(e, ctx); err != nil {
			return fmt.Errorf("scenario %d (%s): %w", s.num, s.name, err)
		}
		e.logf("scenario %d done in %s", s.num, time.Since(t).Round(time.Second))
	}
	return e.report(out, time.Since(started))
}

// pick returns the scenarios -only selects, in run order, and whether
// any needs the control plane.
func pick(only string) ([]scenario, bool) {
	want := map[string]bool{}
	for _, f := range strings.Split(only, ",") {
		if f = strings.TrimSpace(f); f != "" {
			want[f] = true
		}
	}
	var out []scenario
	cluster := false
	for _, s := range scenarios {
		if len(want) == 0 || want[strconv.Itoa(s.num)] {
			out = append(out, s)
			cluster = cluster || s.cluster
		}
	}
	return out, cluster
}

// setup builds the peer programs and roleout, and starts the control
// plane and the git server.
func (e *env) setup(ctx context.Context, cluster bool) error {
	e.logf("building roleout and the Flux peer (hack/bench/flux)")
	e.roleoutBin = filepath.Join(e.work, "roleout")
	if err := goBuild(ctx, e.root, "./cmd/roleout", e.roleoutBin); err != nil {
		return err
	}
	if !cluster {
		return nil
	}
	e.fluxBin = filepath.Join(e.work, "fluxapply")
	if err := goBuild(ctx, filepath.Join(e.root, "hack", "bench", "flux"), ".", e.fluxBin); err != nil {
		return err
	}
	e.logf("starting the local control plane")
	c, err := testcluster.Start(ctx, testcluster.DefaultOptions())
	if err != nil {
		return err
	}
	e.cluster = c
	e.logf("restarting kube-controller-manager with --kube-api-qps=%d --kube-api-burst=%d", controllerQPS, controllerBurst)
	if err := e.fastControllerManager(ctx); err != nil {
		return err
	}
	if e.git, err = testgit.Start(filepath.Join(e.work, "git"), testgit.Options{}); err != nil {
		return err
	}
	// Warm kubectl's discovery cache, as on a machine where it is used.
	_, err = e.kubectl(ctx, false, "api-resources")
	return err
}

func (e *env) teardown() {
	if e.git != nil {
		e.git.Close()
	}
	if e.cluster != nil {
		e.cluster.Stop()
	}
}

// logf prints a progress line with the time.
func (e *env) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// profiled runs f, under the CPU profiler when -cpuprofile is set (one
// file per call, named after series).
func (e *env) profiled(series string, f func() error) error {
	if e.profileDir == "" {
		return f()
	}
	e.profiles[series]++
	name := strings.NewReplacer("/", "_", "=", "-").Replace(series)
	file, err := os.Create(filepath.Join(e.profileDir, fmt.Sprintf("%s-%d.pprof", name, e.profiles[series])))
	if err != nil {
		return err
	}
	defer file.Close()
	if err := pprof.StartCPUProfile(file); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	return f()
}

// order returns items, reversed on odd rounds: A B, then B A.
func order[T any](round int, items []T) []T {
	out := append([]T(nil), items...)
	if round%2 == 1 {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// report prints the table and every series, and writes the benchmark
// file and the table next to it.
func (e *env) report(out string, total time.Duration) error {
	w := e.out
	fmt.Fprintf(w, "\nroleout benchmark: %d pairs, %s in all, %s; roleout %s\n\n", e.pairs, total.Round(time.Second), machine(), e.revision)
	e.res.printTable(w)
	fmt.Fprintln(w, "\nall series (median (min–max) over n samples):")
	e.res.printSeries(w)
	path := out
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.root, path)
	}
	if err := e.res.writeBenchFile(path); err != nil {
		return err
	}
	f, err := os.Create(strings.TrimSuffix(path, filepath.Ext(path)) + "-table.md")
	if err != nil {
		return err
	}
	defer f.Close()
	e.res.printTable(f)
	fmt.Fprintf(w, "\nbenchmark format: %s (benchstat %s)\n", path, out)
	return f.Close()
}

// machine describes the machine: cores and memory.
func machine() string {
	mem := "unknown memory"
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				kb, _ := strconv.Atoi(f[1])
				mem = fmt.Sprintf("%.1f GiB memory", float64(kb)/(1<<20))
			}
		}
	}
	return fmt.Sprintf("%d cores (%s), %s", numCPU(), cpuModel(), mem)
}

// gitRevision describes the checkout at root (commit, and "-dirty" with
// uncommitted changes), as the measured version of roleout.
func gitRevision(root string) string {
	out, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
