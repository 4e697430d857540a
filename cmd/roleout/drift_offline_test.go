package main

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/status"
)

// setImage changes the image of Deployment name's container main as
// field manager manager with an update (not an apply), as kubectl set
// image and kubectl edit do.
func setImage(t *testing.T, cs kubernetes.Interface, ns, name, image, manager string) {
	t.Helper()
	patch := `{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"` + image + `"}]}}}}`
	_, err := cs.AppsV1().Deployments(ns).Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: manager})
	if err != nil {
		t.Fatal(err)
	}
}

// imageBecomes waits until Deployment name's first container has image.
func imageBecomes(t *testing.T, cs kubernetes.Interface, ns, name, image string, d time.Duration) bool {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		dep, err := cs.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && dep.Spec.Template.Spec.Containers[0].Image == image {
			return true
		}
	}
	return false
}

// TestDriftWhileStopped makes drift while no agent runs. First a cron
// style `run --once` after a commit that changes role b but not its
// Deployment: the Deployment carries the applied hash, yet its replicas
// taken by kubectl are taken back, so drift survives no rollout of its
// role. Then `run --once` with nothing new in git, which watches
// nothing, finds drift by reading each object once and heals it. Then
// `roleout run` starts on an app already Succeeded at the head: its first listing compares each object with what its role's
// revision applied, and heals a replica count and an image changed while
// it was stopped, within seconds, recording both as drift.
func TestDriftWhileStopped(t *testing.T) {
	t.Parallel()
	const ns = "drift-offline"
	repo, _, stop := driftSetup(t, ns, "")
	stop()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: "+ns+", path: apps/three, timeout: 30s}\nschedule: {interval: 1h}\nhttp: {address: \"-\"}\n")

	scale(t, cs, ns, "b", 5, "kubectl")
	files := driftApp(ns)
	files["apps/three/b.yaml"] = strings.Replace(files["apps/three/b.yaml"], `data: {tag: "v1"}`, `data: {tag: "v1", extra: "x"}`, 1)
	head, err := repo.Commit("main", "role b: its ConfigMap only", files)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("run --once: exit %d\n%s", code, logs)
	}
	if !waitForStatus(t, repo, ns, time.Minute, succeededAt(head)) {
		t.Fatal("run --once did not roll out the commit")
	}
	if !replicasBecome(t, cs, ns, "b", 2, time.Second) {
		t.Error("the rollout of role b kept kubectl's 5 replicas on Deployment b: its applied hash hid the drift")
	}

	// Cron again, nothing new in git: the app is Succeeded at the head,
	// and run --once, which watches nothing, still finds and heals it.
	scale(t, cs, ns, "b", 3, "kubectl")
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("run --once: exit %d\n%s", code, logs)
	}
	if !replicasBecome(t, cs, ns, "b", 2, time.Second) {
		t.Error("run --once on an app Succeeded at the head kept kubectl's 3 replicas on Deployment b")
	}
	if rec, d := driftRecord(t, repo, ns, "Deployment/"+ns+"/b"); rec == nil || !d.Healed || !slices.Contains(d.Managers, "kubectl") {
		t.Errorf("drift record of run --once = %+v, want spec.replicas taken by kubectl, healed", d)
	}

	scale(t, cs, ns, "b", 4, "kubectl")
	setImage(t, cs, ns, "c", "registry.example/c:hotfix", "kubectl-edit")
	out := &syncBuffer{}
	cmd := startRoleout(t, out, "run", "--config", config)
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	if !replicasBecome(t, cs, ns, "b", 2, time.Minute) {
		t.Fatalf("replicas of Deployment b scaled while no agent ran were not healed after its start:\n%s", out.String())
	}
	if !imageBecomes(t, cs, ns, "c", "registry.example/c:v1", time.Minute) {
		t.Fatalf("the image of Deployment c changed while no agent ran was not healed after its start:\n%s", out.String())
	}
	want := map[string]string{"Deployment/" + ns + "/b": "spec.replicas", "Deployment/" + ns + "/c": "spec.template.spec.containers[name=main].image"}
	for object, field := range want {
		var rec *status.Rollout
		var d *status.Drift
		for deadline := time.Now().Add(time.Minute); rec == nil && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			rec, d = driftRecord(t, repo, ns, object)
		}
		if rec == nil || !d.Healed || !slices.Contains(d.Fields, field) {
			t.Errorf("drift record of %s = %+v, want %s, healed", object, d, field)
		}
	}
}
