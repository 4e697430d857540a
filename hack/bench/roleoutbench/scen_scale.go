package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/sharding"
)

// The scale-out workload (scenario 12): scaleApps apps of scaleObjects
// ConfigMaps each, in two roles, shared by replicas of one configuration
// with sharding.mode dynamic.
const (
	scaleApps    = 100
	scaleObjects = 50
	scaleGroup   = "bench-scale"
	// scaleIdle is how long scenario 12 counts an idle replica's
	// requests.
	scaleIdle = 60 * time.Second
)

// scaleFiles returns the scale-out apps at version v: every ConfigMap
// holds v, so that a new version changes every object.
func scaleFiles(v int) map[string]string {
	files := map[string]string{}
	for i := range scaleApps {
		app := fmt.Sprintf("scale-%d", i)
		files["apps/"+app+"/kustomization.yaml"] = "namespace: " + app + "\nresources: [first.yaml, second.yaml]\n"
		for r, role := range []string{"first", "second"} {
			var b strings.Builder
			for j := range scaleObjects / 2 {
				fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d-%d, annotations: {roleout.dev/role: %s}}\ndata: {v: \"%d\", pad: %q}\n",
					r, j, role, v, strings.Repeat("x", 200))
			}
			files["apps/"+app+"/"+role+".yaml"] = b.String()
		}
	}
	return files
}

// scaleReplica is one `roleout run` of scenario 12, with its API
// requests counted by a proxy of its own.
type scaleReplica struct {
	id    string
	proxy *countingProxy
	proc  *agentProc
}

// cpu returns the CPU time of the process and its waited-for children
// (render sandboxes), in seconds.
func (r *scaleReplica) cpu() float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", r.proc.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	_, secs, _ := procCPU(string(data))
	return secs
}

// procCPU returns a process's program name and the CPU time of it and
// of the children it has waited for, in seconds, from the text of its
// /proc/PID/stat; ok is false when the text does not parse.
func procCPU(stat string) (name string, secs float64, ok bool) {
	open, end := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if open < 0 || end < open || end+2 > len(stat) {
		return "", 0, false
	}
	f := strings.Fields(stat[end+2:])
	if len(f) < 15 {
		return "", 0, false
	}
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
		v, _ := strconv.ParseFloat(f[i], 64)
		secs += v / 100
	}
	return stat[open+1 : end], secs, true
}

// cpuByProgram returns the CPU time of every process on the machine,
// with that of the children each has waited for, summed by program name,
// in seconds: the git server's `git` processes count for the program
// that serves them (this benchmark), a replica's render sandboxes for
// `roleout`.
func cpuByProgram() map[string]float64 {
	out := map[string]float64{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		if name, secs, ok := procCPU(string(data)); ok {
			out[name] += secs
		}
	}
	return out
}

// cpuSpent returns where CPU time went between two cpuByProgram
// readings: "kube-apiserver 120 s, etcd 30 s, …", largest first.
func cpuSpent(before, after map[string]float64) string {
	type spent struct {
		name string
		s    float64
	}
	var all []spent
	for name, v := range after {
		if d := v - before[name]; d >= 1 {
			all = append(all, spent{name, d})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
	var parts []string
	for _, x := range all {
		parts = append(parts, fmt.Sprintf("%s %.0f s", x.name, x.s))
	}
	return strings.Join(parts, ", ")
}

// machineBusy returns the CPU time every core of the machine spent not
// idle, in seconds, from /proc/stat.
func machineBusy() float64 {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(strings.SplitN(string(data), "\n", 2)[0])
	var busy float64
	for i, v := range f[1:] {
		n, _ := strconv.ParseFloat(v, 64)
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy / 100
}

// scaleOut is scenario 12: 100 apps of 50 ConfigMaps shared by dynamic
// sharding. After an install by three replicas, two leave; then for 1, 2
// and 3 replicas (each joining one at a time) one commit changes all
// 5,000 objects, and the time until every app's status says Succeeded at
// it is measured, with the machine's and the replicas' CPU time and
// their API requests. When a replica joins, the apps that move are
// counted (the goal is 1/N). Last, with three idle replicas, each one's
// API requests in scaleIdle and memory.
func (e *env) scaleOut(ctx context.Context) error {
	repo, err := e.git.NewRepo("scale")
	if err != nil {
		return err
	}
	var apps []string
	text := fmt.Sprintf("apiVersion: roleout.dev/v1alpha1\nkind: AgentConfig\nsource: {url: %q, branch: main}\napps:\n", repo.URL())
	for i := range scaleApps {
		app := fmt.Sprintf("scale-%d", i)
		apps = append(apps, app)
		text += fmt.Sprintf("- {name: %[1]s, path: apps/%[1]s, namespace: %[1]s, timeout: 3m}\n", app)
		if err := e.createNamespace(ctx, app); err != nil {
			return err
		}
	}
	text += fmt.Sprintf("schedule: {interval: 5s}\nhttp: {address: \"-\"}\nsharding: {mode: dynamic, name: %s}\n", scaleGroup)
	version := 1
	head, err := repo.Commit("main", "v1", scaleFiles(version))
	if err != nil {
		return err
	}
	replicas := map[string]*scaleReplica{}
	defer func() {
		for _, r := range replicas {
			r.proc.stop()
			r.proxy.close()
		}
	}()
	start := func(id string) error {
		proxy, err := startProxy(e.cluster.Config, filepath.Join(e.work, id+".kubeconfig"))
		if err != nil {
			return err
		}
		config := filepath.Join(e.work, id+".yaml")
		t := text + fmt.Sprintf("cacheDir: %q\nkubeconfig: %q\n", filepath.Join(e.work, "cache-"+id), proxy.kubeconfig)
		if err := os.WriteFile(config, []byte(t), 0o644); err != nil {
			proxy.close()
			return err
		}
		p, err := e.startAgentArgs(ctx, id, []string{"run", "--config", config, "--identity", id, "--log-level", "info"}, "GODEBUG=gctrace=1")
		if err != nil {
			proxy.close()
			return err
		}
		replicas[id] = &scaleReplica{id: id, proxy: proxy, proc: p}
		return nil
	}
	cs, err := kubernetes.NewForConfig(e.cluster.Config)
	if err != nil {
		return err
	}
	leases := cs.CoordinationV1().Leases("default")
	owners := func() (map[string]string, error) {
		o, err := sharding.Owners(ctx, leases, scaleGroup, apps, time.Now())
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		for app, w := range o {
			out[app] = w.Owner
		}
		return out, nil
	}
	// settled waits until the live replicas hold every app, each some.
	settled := func() (map[string]string, error) {
		for deadline := time.Now().Add(3 * time.Minute); ; {
			o, err := owners()
			if err != nil {
				return nil, err
			}
			by := map[string]int{}
			for _, id := range o {
				by[id]++
			}
			ok := by[""] == 0 && len(by) == len(replicas)
			for id := range replicas {
				ok = ok && by[id] > 0
			}
			if ok {
				return o, nil
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("the replicas did not settle: %v", by)
			}
			if err := sleep(ctx, time.Second); err != nil {
				return nil, err
			}
		}
	}
	anyProc := func() *agentProc {
		for _, r := range replicas {
			return r.proc
		}
		return nil
	}

	e.logf("  3 replicas install %d apps × %d ConfigMaps", scaleApps, scaleObjects)
	installed := time.Now()
	for _, id := range []string{"r1", "r2", "r3"} {
		if err := start(id); err != nil {
			return err
		}
	}
	if err := waitSucceeded(ctx, anyProc(), repo, head, 15*time.Minute, apps...); err != nil {
		return err
	}
	e.logf("    installed in %s", time.Since(installed).Round(time.Second))
	for _, id := range []string{"r2", "r3"} {
		replicas[id].proc.stop()
		replicas[id].proxy.close()
		delete(replicas, id)
	}
	before, err := settled()
	if err != nil {
		return err
	}
	for n := 1; n <= 3; n++ {
		if n > 1 {
			id := fmt.Sprintf("r%d", n)
			if err := start(id); err != nil {
				return err
			}
			after, err := settled()
			if err != nil {
				return err
			}
			moved := 0
			for app, o := range after {
				if o != before[app] {
					moved++
				}
			}
			before = after
			series := fmt.Sprintf("ScaleOut/join-%d", n)
			e.res.add(series, 0, map[string]float64{"apps-moved": float64(moved)})
			r := reportRow("12", fmt.Sprintf("apps moved when replica %d joins (goal about %d of %d)", n, scaleApps/n, scaleApps), fmt.Sprintf("%d", moved))
			e.res.addRow(r)
			e.logf("    %s joined: %d apps moved", id, moved)
		}
		version++
		if err := e.scaleCommit(ctx, repo, replicas, anyProc(), apps, version, n); err != nil {
			return err
		}
	}
	return e.scaleIdle(ctx, replicas)
}

// scaleCommit commits version v of every app and measures how long n
// replicas take to roll it out.
func (e *env) scaleCommit(ctx context.Context, repo *testgit.Repo, replicas map[string]*scaleReplica, p *agentProc, apps []string, v, n int) error {
	// Two polls of quiet, so that nothing of the last step runs on.
	if err := sleep(ctx, 10*time.Second); err != nil {
		return err
	}
	cpu := map[string]float64{}
	for id, r := range replicas {
		cpu[id] = r.cpu()
		r.proxy.reset()
	}
	busy, programs := machineBusy(), cpuByProgram()
	statusBefore := statusHead(repo)
	e.git.ResetCounts()
	start := time.Now()
	head, err := repo.Commit("main", fmt.Sprintf("v%d", v), scaleFiles(v))
	if err != nil {
		return err
	}
	if err := waitSucceeded(ctx, p, repo, head, 15*time.Minute, apps...); err != nil {
		return err
	}
	took := time.Since(start)
	machine := machineBusy() - busy
	where := cpuSpent(programs, cpuByProgram())
	var own float64
	var requests []string
	total := 0
	for id, r := range replicas {
		own += r.cpu() - cpu[id]
		_, others, _ := r.proxy.counts()
		total += others
		requests = append(requests, fmt.Sprintf("%s %d", id, others))
	}
	// Every push that landed made one commit on the status branch; the
	// others lost a race to another replica and were made again.
	pushes, fetches := e.git.Count(repo.Name, testgit.ReceivePack), e.git.Count(repo.Name, testgit.UploadPack)
	landed := 0
	if out, err := exec.Command("git", "--git-dir", repo.BarePath(), "rev-list", "--count", statusBefore+".."+statusHead(repo)).Output(); err == nil {
		landed, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	series := fmt.Sprintf("ScaleOut/commit-%d-replicas", n)
	e.res.add(series, took, map[string]float64{"machine-cpu-s": machine, "replicas-cpu-s": own, "api-requests": float64(total),
		"status-pushes": float64(pushes), "status-pushes-rejected": float64(pushes - landed), "git-fetches": float64(fetches)})
	e.logf("    %d replicas: %d apps × %d objects converged in %s; machine CPU %.0f s of %.0f s (%d cores): %s; replicas' API requests %s; "+
		"status pushes %d (%d rejected), git fetches %d",
		n, scaleApps, scaleObjects, took.Round(time.Millisecond), machine, took.Seconds()*float64(numCPU()), numCPU(), where, strings.Join(requests, ", "),
		pushes, pushes-landed, fetches)
	e.res.addRow(reportRow("12", fmt.Sprintf("one commit changes %d apps × %d objects: converged with %d replica(s)", scaleApps, scaleObjects, n),
		fmt.Sprintf("%s (machine CPU %.0f%% busy: %s)", took.Round(100*time.Millisecond), 100*machine/(took.Seconds()*float64(numCPU())), where)))
	return nil
}

// scaleIdle counts each idle replica's API requests in scaleIdle and
// reads its memory.
func (e *env) scaleIdle(ctx context.Context, replicas map[string]*scaleReplica) error {
	if err := sleep(ctx, 15*time.Second); err != nil {
		return err
	}
	for _, r := range replicas {
		r.proxy.reset()
	}
	if err := sleep(ctx, scaleIdle); err != nil {
		return err
	}
	for _, id := range []string{"r1", "r2", "r3"} {
		r := replicas[id]
		watches, others, summary := r.proxy.counts()
		m := r.proc.mem()
		live, _, _ := r.proc.lastGC()
		rate := float64(others) / scaleIdle.Seconds()
		e.res.add("ScaleOut/idle-"+id, scaleIdle, map[string]float64{
			"idle-req-per-s": rate, "watch-starts": float64(watches), "rss-MiB": float64(m.rss) / mib, "peak-RSS-MiB": float64(m.peak) / mib, "live-heap-MiB": live})
		e.logf("    %s idle: %.2f requests/s (%s), %d watches started; RSS %.0f MiB (peak %.0f), live heap %.0f MiB",
			id, rate, summary, watches, float64(m.rss)/mib, float64(m.peak)/mib, live)
		e.res.addRow(reportRow("12", "idle replica "+id+": API requests per second, RSS (peak)",
			fmt.Sprintf("%.2f/s; %.0f MiB (%.0f MiB)", rate, float64(m.rss)/mib, float64(m.peak)/mib)))
	}
	return nil
}
