package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// driftApp is threeWaves plus Deployment elastic in role c, whose
// manifest leaves replicas to an autoscaler.
func driftApp(ns string) map[string]string {
	files := threeWaves(ns, "v1")
	files["apps/three/kustomization.yaml"] = "namespace: " + ns + "\nresources: [namespace.yaml, a.yaml, b.yaml, c.yaml, elastic.yaml]\n"
	files["apps/three/elastic.yaml"] = `apiVersion: apps/v1
kind: Deployment
metadata: {name: elastic, annotations: {roleout.dev/role: c}}
spec:
  selector: {matchLabels: {app: elastic}}
  template:
    metadata: {labels: {app: elastic}}
    spec: {containers: [{name: main, image: "registry.example/elastic:v1"}]}
`
	return files
}

// driftSetup serves driftApp and starts roleout run on it with app
// settings extra (", selfHeal: false"); the schedule is an hour, so
// whatever the agent does after the first rollout comes from its watches.
func driftSetup(t *testing.T, ns, extra string) (*testgit.Repo, *syncBuffer, func()) {
	t.Helper()
	testcluster.Require(t, cluster)
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, ns)
	head, err := repo.Commit("main", "v1", driftApp(ns))
	if err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: "+ns+", path: apps/three, timeout: 30s"+extra+"}\nschedule: {interval: 1h}\nhttp: {address: \"-\"}\n")
	out := &syncBuffer{}
	cmd := startRoleout(t, out, "run", "--config", config)
	stop := sync.OnceFunc(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	t.Cleanup(stop)
	if !waitForStatus(t, repo, ns, 2*time.Minute, succeededAt(head)) {
		t.Fatalf("the first rollout did not succeed:\n%s", out.String())
	}
	waitForLog(t, out, "watching the app's objects for drift")
	return repo, out, stop
}

// waitForLog waits until the agent's output says s.
func waitForLog(t *testing.T, out *syncBuffer, s string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(out.String(), s) {
			return
		}
	}
	t.Fatalf("the agent never said %q:\n%s", s, out.String())
}

// scale sets a Deployment's replicas through the scale subresource as
// field manager manager, as kubectl scale and the HPA do.
func scale(t *testing.T, cs kubernetes.Interface, ns, name string, n int32, manager string) {
	t.Helper()
	_, err := cs.AppsV1().Deployments(ns).UpdateScale(context.Background(), name,
		&autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: autoscalingv1.ScaleSpec{Replicas: n}},
		metav1.UpdateOptions{FieldManager: manager})
	if err != nil {
		t.Fatal(err)
	}
}

// replicasBecome waits until Deployment name wants n replicas.
func replicasBecome(t *testing.T, cs kubernetes.Interface, ns, name string, n int32, d time.Duration) bool {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		dep, err := cs.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && dep.Spec.Replicas != nil && *dep.Spec.Replicas == n {
			return true
		}
	}
	return false
}

// driftRecord returns the newest history record of trigger drift that
// names object, or nil.
func driftRecord(t *testing.T, repo *testgit.Repo, app, object string) (*status.Rollout, *status.Drift) {
	t.Helper()
	rep, err := historyOf(t, repo, app)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(rep.Rollouts) - 1; i >= 0; i-- {
		r := &rep.Rollouts[i]
		for j := range r.Drift {
			if r.Trigger == "drift" && r.Drift[j].Object == object {
				return r, &r.Drift[j]
			}
		}
	}
	return nil, nil
}

// writesTo counts roleout's writes to deployments/name in ns.
func writesTo(t *testing.T, ns, resource, name string) int {
	n := 0
	for _, w := range appWritesList(t, ns) {
		if w.Resource == resource && w.Name == name {
			n++
		}
	}
	return n
}

// TestDriftHealed: with the schedule an hour away, the agent's watches
// see kubectl scale of a rolled-out Deployment and heal it, recording the
// other manager's name; an autoscaler scaling a Deployment whose manifest
// omits replicas is no drift and gets no write; a deleted Deployment of
// wave 1 is recreated and Available, and the later waves, not drifted,
// are not written.
func TestDriftHealed(t *testing.T) {
	t.Parallel()
	const ns = "drift-heal"
	repo, out, _ := driftSetup(t, ns, "")
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	before := readStatus(t, repo, ns)
	scale(t, cs, ns, "elastic", 3, "horizontal-pod-autoscaler")
	scale(t, cs, ns, "b", 5, "kubectl")
	if !replicasBecome(t, cs, ns, "b", 2, time.Minute) {
		t.Fatalf("kubectl scale of Deployment b was not healed:\n%s", out.String())
	}
	var rec *status.Rollout
	var d *status.Drift
	for deadline := time.Now().Add(time.Minute); rec == nil && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		rec, d = driftRecord(t, repo, ns, "Deployment/"+ns+"/b")
	}
	if rec == nil {
		t.Fatalf("no drift record for Deployment b in history.yaml:\n%s", out.String())
	}
	if !d.Healed || !slices.Contains(d.Fields, "spec.replicas") || !slices.Contains(d.Managers, "kubectl") || rec.Result != status.PhaseSucceeded {
		t.Errorf("drift record = %+v in %+v, want spec.replicas changed by kubectl, healed", *d, *rec)
	}
	st := readStatus(t, repo, ns)
	if b, old := statusRole(st, "b"), statusRole(before, "b"); b == nil || b.Result != status.RoleHealed || b.RevisionNumber != old.RevisionNumber {
		t.Errorf("role b after the heal = %+v, want Healed at revision %d (a heal bumps no revision)", b, old.RevisionNumber)
	}
	if dep, err := cs.AppsV1().Deployments(ns).Get(context.Background(), "elastic", metav1.GetOptions{}); err != nil || *dep.Spec.Replicas != 3 {
		t.Errorf("Deployment elastic (replicas left to the autoscaler) = %v, %v; want the autoscaler's 3 kept", dep.Spec.Replicas, err)
	}
	if n := writesTo(t, ns, "deployments", "elastic"); n != 1 {
		t.Errorf("roleout wrote Deployment elastic %d times, want once (its rollout): the autoscaler's replicas are not drift", n)
	}
	// The Event follows the status commit.
	var healedEvent string
	for deadline := time.Now().Add(30 * time.Second); healedEvent == "" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		evs, err := cs.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=b,reason=DriftHealed"})
		if err == nil && len(evs.Items) > 0 {
			healedEvent = evs.Items[0].Message
		}
	}
	if !strings.Contains(healedEvent, "kubectl") {
		t.Errorf("DriftHealed Event on Deployment b says %q, want one naming the other manager", healedEvent)
	}

	writesC := writesTo(t, ns, "deployments", "c")
	if err := cs.AppsV1().Deployments(ns).Delete(context.Background(), "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	recreated := false
	for deadline := time.Now().Add(time.Minute); !recreated && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		dep, err := cs.AppsV1().Deployments(ns).Get(context.Background(), "a", metav1.GetOptions{})
		recreated = err == nil && dep.Status.AvailableReplicas == 2
	}
	if !recreated {
		t.Fatalf("the deleted Deployment a was not recreated and Available:\n%s", out.String())
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if rec, d = driftRecord(t, repo, ns, "Deployment/"+ns+"/a"); rec != nil {
			break
		}
	}
	if rec == nil || !d.Deleted || !d.Healed {
		t.Errorf("drift record of the deleted Deployment a = %+v, want deleted and healed", d)
	}
	if n := writesTo(t, ns, "deployments", "c"); n != writesC {
		t.Errorf("healing wave 1 wrote Deployment c of wave 3 (%d writes, was %d): it did not drift", n, writesC)
	}

	// Two waves drift at once: wave 1's Deployment deleted, wave 3's
	// scaled. The heal goes in wave order: c is written only after a is
	// recreated (and wave 1 healthy).
	since := len(appWritesList(t, ns))
	if err := cs.AppsV1().Deployments(ns).Delete(context.Background(), "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	scale(t, cs, ns, "c", 4, "kubectl")
	if !replicasBecome(t, cs, ns, "c", 2, time.Minute) {
		t.Fatalf("Deployment c was not healed:\n%s", out.String())
	}
	var order []string
	for _, w := range appWritesList(t, ns)[since:] {
		if w.Resource == "deployments" {
			order = append(order, w.Verb+" "+w.Name)
		}
	}
	if ia, ic := slices.Index(order, "patch a"), slices.Index(order, "patch c"); ia < 0 || ic < 0 || ia > ic {
		t.Errorf("writes while healing two waves = %v, want Deployment a recreated (a server-side apply patch) before c is patched", order)
	}
}

// TestDriftNotHealed: with selfHeal: false, drift is recorded in the
// status and history and nothing is written; a paused app heals nothing
// either.
func TestDriftNotHealed(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ ns, extra, phase string }{
		{"drift-off", ", selfHeal: false", status.PhaseSucceeded},
		{"drift-paused", "", status.PhasePaused},
	} {
		t.Run(tc.ns, func(t *testing.T) {
			repo, out, stop := driftSetup(t, tc.ns, tc.extra)
			if tc.phase == status.PhasePaused {
				stop()
				out = restartPaused(t, repo, tc.ns)
			}
			writesB := writesTo(t, tc.ns, "deployments", "b")
			scale(t, cs, tc.ns, "b", 5, "kubectl")
			object := "Deployment/" + tc.ns + "/b"
			ok := waitForStatus(t, repo, tc.ns, time.Minute, func(st *status.App) bool {
				return st.Phase == tc.phase && slices.ContainsFunc(st.Drift, func(d status.Drift) bool { return d.Object == object && !d.Healed })
			})
			if !ok {
				t.Fatalf("the status never showed the drift of %s, unhealed, in phase %s:\n%s", object, tc.phase, out.String())
			}
			code, stdout, stderr := cli("status", "--config", writeConfig(t, repo.URL(), "- {name: "+tc.ns+", path: apps/three}\n"), "--app", tc.ns, "--output", "json")
			var reps []status.Report
			if err := json.Unmarshal([]byte(stdout), &reps); code != exitOK || err != nil || len(reps) != 1 || len(reps[0].Drift) != 1 || reps[0].Drift[0].Object != object {
				t.Errorf("roleout status = exit %d, %s (%v); stderr %s; want the app's one drift", code, stdout, err, stderr)
			}
			code, stdout, _ = cli("status", "--config", writeConfig(t, repo.URL(), "- {name: "+tc.ns+", path: apps/three}\n"))
			if code != exitOK || !strings.Contains(stdout, "spec.replicas changed by kubectl") {
				t.Errorf("roleout status (text) = exit %d:\n%s\nwant the drift described", code, stdout)
			}
			if rec, d := driftRecord(t, repo, tc.ns, object); rec == nil || d.Healed || !slices.Contains(d.Managers, "kubectl") {
				t.Errorf("history record of the drift = %+v, want it recorded as not healed, by kubectl", d)
			}
			if !replicasBecome(t, cs, tc.ns, "b", 5, time.Second) {
				t.Errorf("Deployment b lost kubectl's 5 replicas: it was healed")
			}
			if n := writesTo(t, tc.ns, "deployments", "b"); n != writesB {
				t.Errorf("roleout wrote Deployment b %d times after the drift, want none", n-writesB)
			}
		})
	}
}

// restartPaused restarts roleout run with the app of repo paused and
// waits for its watches.
func restartPaused(t *testing.T, repo *testgit.Repo, ns string) *syncBuffer {
	t.Helper()
	config := writeConfig(t, repo.URL(), "- {name: "+ns+", path: apps/three, timeout: 30s, paused: true}\nschedule: {interval: 1h}\nhttp: {address: \"-\"}\n")
	out := &syncBuffer{}
	cmd := startRoleout(t, out, "run", "--config", config)
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	waitForLog(t, out, "watching the app's objects for drift")
	return out
}
