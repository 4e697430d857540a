package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// healName is the app (and namespace) of scenario 10.
const healName = "bench-heal"

// healReplicas is the replicas of the heal app's Deployments: one pod
// each (kwok's), so that "Available" means a pod is Ready again.
const healReplicas = 1

// drift is scenario 10: how long `roleout run` takes to heal drift it
// sees through its watches. A copy of the app (1,000 objects, its 200
// Deployments at one replica) is rolled out by a `roleout run` process
// whose schedule is an hour away, so what it does next comes from its
// watches. Then, alternated, -pairs times each, on a Deployment of
// role-1 (wave 1 of 4, 250 objects) not touched before (drift of an
// object healed less than 5 minutes before backs off), up to 25 times:
//
//   - kubectl scale: replicas set to 3 through the scale subresource as
//     field manager kubectl; measured until spec.replicas is 1 again (a
//     watch event) and until the status branch records the heal;
//   - kubectl delete: the Deployment deleted (background propagation, as
//     kubectl does); measured until it exists again and until it is
//     Available (observed, every replica updated and available), and
//     until the status branch records the heal.
//
// The agent's writes come from the audit log (user agent roleout/…;
// this program's own are roleoutbench/…).
func (e *env) drift(ctx context.Context) error {
	repo, err := e.git.NewRepo("heal")
	if err != nil {
		return err
	}
	wl := newWorkload(healName, true)
	wl.replicas = healReplicas
	head, err := repo.Commit("main", "heal app v0", wl.filesAt("apps/"+healName))
	if err != nil {
		return err
	}
	if err := e.createNamespace(ctx, healName); err != nil {
		return err
	}
	_, text, err := agentConfig(repo.URL(), filepath.Join(e.work, "cache-heal"), healName)
	if err != nil {
		return err
	}
	config := filepath.Join(e.work, "heal-agent.yaml")
	text += fmt.Sprintf("schedule: {interval: 1h}\nhttp: {address: \"-\"}\nkubeconfig: %q\n", e.cluster.Kubeconfig)
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		return err
	}
	e.logf("  roleout run over %s (%d Deployments at %d replica): first rollout, not timed", healName, roles*deploymentsPerRole, healReplicas)
	proc, err := e.startAgent(ctx, "heal-agent", config)
	if err != nil {
		return err
	}
	defer proc.stop()
	if err := waitSucceeded(ctx, proc, repo, head, 5*time.Minute, healName); err != nil {
		return err
	}
	if err := proc.waitLog(ctx, "watching the app's objects for drift", 1, time.Minute); err != nil {
		return err
	}
	if err := e.settle(ctx); err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(e.cluster.Config)
	if err != nil {
		return err
	}
	// Objects app-1-00 … for scale, app-1-25 … for delete: each drifts
	// once, so at most 25 runs of each.
	for i := range min(e.pairs, deploymentsPerRole/2) {
		for _, kind := range order(i, []string{"scale", "delete"}) {
			n := i
			if kind == "delete" {
				n += deploymentsPerRole / 2
			}
			name := fmt.Sprintf("app-1-%02d", n)
			before, err := e.cluster.Writes("roleout/")
			if err != nil {
				return err
			}
			from := statusHead(repo)
			var mx map[string]float64
			var d time.Duration
			if kind == "scale" {
				d, mx, err = healScale(ctx, cs, repo, from, name)
			} else {
				d, mx, err = healDelete(ctx, cs, repo, from, name)
			}
			if err != nil {
				return fmt.Errorf("%s Deployment %s: %w\n%s", kind, name, err, lastLines(proc.log(), 15))
			}
			// Settled first: the agent records its Events after the
			// status commit.
			if err := e.settle(ctx); err != nil {
				return err
			}
			after, err := e.cluster.Writes("roleout/")
			if err != nil {
				return err
			}
			mx["api-writes/op"] = float64(len(after) - len(before))
			e.res.add("Heal/"+kind, d, mx)
			e.logf("  %s %s: healed in %s, recorded after %s; writes: %s", kind, name, d.Round(time.Millisecond),
				time.Duration(mx["recorded-ns/op"]).Round(time.Millisecond), writeSummary(after[len(before):]))
		}
	}
	scaled, deleted := e.res.get("Heal/scale"), e.res.get("Heal/delete")
	for i, x := range [][2]string{
		{"`kubectl scale` (scale subresource, manager kubectl) to spec.replicas back", fmtDur(scaled)},
		{"`kubectl scale` to the heal recorded on the status branch (history: drift, healed)", fmtDurOf(scaled, "recorded-ns/op")},
		{"`kubectl delete` of a Deployment to recreated", fmtDurOf(deleted, "recreated-ns/op")},
		{"`kubectl delete` of a Deployment to recreated and Available", fmtDur(deleted)},
		{"`kubectl delete` to the heal recorded on the status branch", fmtDurOf(deleted, "recorded-ns/op")},
		{"API writes per heal (audit log): scale, delete", fmtNum(scaled, "api-writes/op", "") + ", " + fmtNum(deleted, "api-writes/op", "")},
	} {
		r := reportRow("10", x[0], x[1])
		if i == 0 {
			r.scenario = "drift healed by `roleout run` (its watches; 1,000-object app, drift in wave 1 of 4)"
		}
		e.res.addRow(r)
	}
	return nil
}

// healScale scales Deployment name of the heal app to 3 replicas as
// kubectl and returns the time until its spec.replicas is back, and the
// time until the status branch (at commit from before) records the heal.
func healScale(ctx context.Context, cs kubernetes.Interface, repo *testgit.Repo, from, name string) (time.Duration, map[string]float64, error) {
	start := time.Now()
	sc, err := cs.AppsV1().Deployments(healName).UpdateScale(ctx, name,
		&autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: healName}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}},
		metav1.UpdateOptions{FieldManager: "kubectl"})
	if err != nil {
		return 0, nil, err
	}
	recorded := recordedAsync(ctx, repo, name, from, start)
	times, err := watchDeployment(ctx, cs, name, sc.ResourceVersion, 2*time.Minute, func(_ watch.EventType, d *appsv1.Deployment) bool {
		return d.Spec.Replicas != nil && *d.Spec.Replicas == healReplicas
	})
	if err != nil {
		return 0, nil, err
	}
	r := <-recorded
	if r.err != nil {
		return 0, nil, r.err
	}
	return times[0].Sub(start), map[string]float64{"recorded-ns/op": float64(r.at.Sub(start).Nanoseconds())}, nil
}

// healDelete deletes Deployment name of the heal app and returns the time
// until it is back and Available, with the times until it was created
// again and until the status branch recorded the heal.
func healDelete(ctx context.Context, cs kubernetes.Interface, repo *testgit.Repo, from, name string) (time.Duration, map[string]float64, error) {
	dep, err := cs.AppsV1().Deployments(healName).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return 0, nil, err
	}
	start := time.Now()
	if err := cs.AppsV1().Deployments(healName).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return 0, nil, err
	}
	recorded := recordedAsync(ctx, repo, name, from, start)
	times, err := watchDeployment(ctx, cs, name, dep.ResourceVersion, 2*time.Minute,
		func(t watch.EventType, _ *appsv1.Deployment) bool { return t == watch.Added },
		func(t watch.EventType, d *appsv1.Deployment) bool { return t != watch.Deleted && available(d) })
	if err != nil {
		return 0, nil, err
	}
	r := <-recorded
	if r.err != nil {
		return 0, nil, r.err
	}
	return times[1].Sub(start), map[string]float64{
		"recreated-ns/op": float64(times[0].Sub(start).Nanoseconds()),
		"recorded-ns/op":  float64(r.at.Sub(start).Nanoseconds()),
	}, nil
}

// recordedAt is when the status branch recorded a heal.
type recordedAt struct {
	at  time.Time
	err error
}

// recordedAsync waits, in the background, for the heal of Deployment
// name to be on the status branch.
func recordedAsync(ctx context.Context, repo *testgit.Repo, name, from string, start time.Time) <-chan recordedAt {
	out := make(chan recordedAt, 1)
	go func() {
		at, err := waitHealRecorded(ctx, repo, healName, "Deployment/"+healName+"/"+name, from, start, 2*time.Minute)
		out <- recordedAt{at, err}
	}()
	return out
}

// available reports whether Deployment d is rolled out and Available:
// observed at its generation, every replica updated and available, and
// its Available condition true.
func available(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	if d.Status.ObservedGeneration < d.Generation || d.Status.UpdatedReplicas != want || d.Status.AvailableReplicas != want {
		return false
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// watchDeployment watches Deployment name of the heal app from resource
// version rv and returns when each condition first held, in turn (a
// condition is tried from the event after the one where the previous
// held); the watch starts again from the last event if the API server
// ends it.
func watchDeployment(ctx context.Context, cs kubernetes.Interface, name, rv string, d time.Duration, conds ...func(watch.EventType, *appsv1.Deployment) bool) ([]time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var times []time.Time
	for len(times) < len(conds) {
		w, err := cs.AppsV1().Deployments(healName).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: rv})
		if err != nil {
			return nil, err
		}
		for ev := range w.ResultChan() {
			dep, ok := ev.Object.(*appsv1.Deployment)
			if !ok {
				continue
			}
			rv = dep.ResourceVersion
			if conds[len(times)](ev.Type, dep) {
				times = append(times, time.Now())
				if len(times) == len(conds) {
					break
				}
			}
		}
		w.Stop()
		if ctx.Err() != nil && len(times) < len(conds) {
			return nil, fmt.Errorf("Deployment %s: condition %d of %d: %w", name, len(times)+1, len(conds), errTimeout)
		}
	}
	return times, nil
}

// fmtDurOf formats the median and range of a series' figure for unit, a
// time in nanoseconds.
func fmtDurOf(s *series, unit string) string {
	m, lo, hi := s.stat(unit)
	if math.IsNaN(m) {
		return "n/a"
	}
	return fmt.Sprintf("%s (%s–%s)", dur(m), dur(lo), dur(hi))
}

// reportRow is a table row of a figure that is reported, not compared.
func reportRow(num, measure, value string) row {
	return row{num: num, measure: measure, roleout: value, peer: "—", ratio: "—", target: "report", verdict: "—"}
}

// writeSummary counts writes by verb and resource: "50 patch
// deployments, 1 create events".
func writeSummary(ws []testcluster.Write) string {
	by := map[string]int{}
	for _, w := range ws {
		r := w.Resource
		if w.Subresource != "" {
			r += "/" + w.Subresource
		}
		if w.DryRun {
			r += " (dry run)"
		}
		by[w.Verb+" "+r]++
	}
	var parts []string
	for k, n := range by {
		parts = append(parts, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
