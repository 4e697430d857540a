package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// toolRun is one timed run of a peer program.
type toolRun struct {
	elapsed  time.Duration
	requests int
}

// metrics returns the run's figures for the benchmark file.
func (t toolRun) metrics() map[string]float64 {
	return map[string]float64{"api-req/op": float64(t.requests)}
}

// kubectl runs bin/kubectl with args against the test cluster, -v=6 so
// that its requests can be counted from its log (one line per response).
// Exit code 1 is accepted when okExit1 (kubectl diff: differences found).
func (e *env) kubectl(ctx context.Context, okExit1 bool, args ...string) (toolRun, error) {
	cmd := exec.CommandContext(ctx, e.kubectlBin, append(args, "-v=6")...)
	cmd.Env = append(os.Environ(), "HOME="+e.kubeHome)
	if e.cluster != nil {
		cmd.Env = append(cmd.Env, "KUBECONFIG="+e.cluster.Kubeconfig)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	run := toolRun{elapsed: time.Since(start), requests: strings.Count(stderr.String(), `"Response" verb=`)}
	if ee, ok := err.(*exec.ExitError); ok && okExit1 && ee.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return run, fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, lastLines(stderr.String(), 5))
	}
	return run, nil
}

// fluxReport is the JSON line of hack/bench/flux.
type fluxReport struct {
	ElapsedNS int64          `json:"elapsedNS"`
	Requests  int            `json:"requests"`
	Objects   int            `json:"objects"`
	Actions   map[string]int `json:"actions"`
}

// flux applies the YAML in dir with Flux's ssa engine (ApplyAllStaged);
// concurrency 0 keeps the engine's default.
func (e *env) flux(ctx context.Context, dir string, concurrency int) (toolRun, fluxReport, error) {
	cmd := exec.CommandContext(ctx, e.fluxBin, "-kubeconfig", e.cluster.Kubeconfig, "-dir", dir, "-concurrency", fmt.Sprint(concurrency))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return toolRun{}, fluxReport{}, fmt.Errorf("flux peer: %w: %s", err, lastLines(stderr.String(), 5))
	}
	var rep fluxReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return toolRun{}, rep, fmt.Errorf("flux peer output %q: %w", stdout.String(), err)
	}
	return toolRun{elapsed: time.Duration(rep.ElapsedNS), requests: rep.Requests}, rep, nil
}

// overlay writes w's overlay into dir/overlay (for kubectl -k) and its
// objects, as the overlay renders them, into dir/rendered/all.yaml (for
// the Flux peer). Nothing here is timed.
func (e *env) overlay(w *workload, dir string) (overlay, rendered string, err error) {
	overlay, rendered = filepath.Join(dir, "overlay"), filepath.Join(dir, "rendered")
	if err := w.write(overlay); err != nil {
		return "", "", err
	}
	objs, err := w.objects()
	if err != nil {
		return "", "", err
	}
	var b bytes.Buffer
	for _, o := range objs {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			return "", "", err
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	if err := os.MkdirAll(rendered, 0o755); err != nil {
		return "", "", err
	}
	return overlay, rendered, os.WriteFile(filepath.Join(rendered, "all.yaml"), b.Bytes(), 0o644)
}

// createNamespace creates namespace ns if it does not exist.
func (e *env) createNamespace(ctx context.Context, ns string) error {
	cs, err := kubernetes.NewForConfig(e.cluster.Config)
	if err != nil {
		return err
	}
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// deleteNamespaces deletes namespaces and waits up to timeout until they
// are gone, so that their garbage collection does not run into the next
// measurement.
func (e *env) deleteNamespaces(ctx context.Context, timeout time.Duration, names ...string) error {
	cs, err := kubernetes.NewForConfig(e.cluster.Config)
	if err != nil {
		return err
	}
	for _, ns := range names {
		if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	deadline := time.Now().Add(timeout)
	for _, ns := range names {
		for {
			_, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("namespace %s still there after %s", ns, timeout)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	return nil
}

// settle waits, untimed, until the controllers have caught up with the
// last measurement: every Deployment of the benchmark observed at its
// generation with its new ReplicaSet available (up to two minutes), so
// that their follow-up work does not run into the next measurement.
func (e *env) settle(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(e.cluster.Config)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		list, err := cs.AppsV1().Deployments("").List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/part-of=bench"})
		if err != nil {
			return err
		}
		pending := 0
		for _, d := range list.Items {
			done := d.Status.ObservedGeneration >= d.Generation
			available := false
			for _, c := range d.Status.Conditions {
				available = available || (c.Type == appsv1.DeploymentProgressing && c.Reason == "NewReplicaSetAvailable")
			}
			if !done || !available {
				pending++
			}
		}
		if pending == 0 {
			time.Sleep(300 * time.Millisecond)
			return nil
		}
		if time.Now().After(deadline) {
			e.logf("  settle: %d Deployments still rolling out after 2m; going on", pending)
			return nil
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// controllerQPS and controllerBurst replace kube-controller-manager's
// client rate limit (upstream default 20 and 30). At 20 requests a
// second the Deployment and ReplicaSet controllers need about 40 s to
// take 200 new Deployments to Available on this control plane, and every
// health wait would measure that limit instead of roleout.
const controllerQPS, controllerBurst = 400, 800

// fastControllerManager restarts the cluster's kube-controller-manager
// with the same arguments and a higher client rate limit.
func (e *env) fastControllerManager(ctx context.Context) error {
	pid := e.cluster.PIDs()["kube-controller-manager"]
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return fmt.Errorf("read kube-controller-manager's arguments: %w", err)
	}
	args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")[1:]
	if err := syscall.Kill(-pid, syscall.SIGTERM); err != nil {
		return err
	}
	for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	args = append(args, fmt.Sprintf("--kube-api-qps=%d", controllerQPS), fmt.Sprintf("--kube-api-burst=%d", controllerBurst))
	return e.cluster.RunController("kube-controller-manager", args)
}

// goBuild builds a Go package into out, from dir (a module).
func goBuild(ctx context.Context, dir, pkg, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if data, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s in %s: %w: %s", pkg, dir, err, lastLines(string(data), 10))
	}
	return nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// cpuSeconds returns the CPU time (user and system) so far of the
// control plane's API server and etcd, and of this process (the client
// in the in-process measurements), in seconds.
func (e *env) cpuSeconds() map[string]float64 {
	pids := e.cluster.PIDs()
	out := map[string]float64{}
	for name, pid := range map[string]int{"apiserver": pids["kube-apiserver"], "etcd": pids["etcd"], "client": os.Getpid()} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: utime and
		// stime are the 12th and 13th, in clock ticks (100 a second).
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(f) > 12 {
			var user, sys float64
			fmt.Sscan(f[11], &user)
			fmt.Sscan(f[12], &sys)
			out[name] = (user + sys) / 100
		}
	}
	return out
}
