package main

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/status"
)

// TestDriftFullComparison: a field removed while no agent ran leaves no
// owner behind, so neither the watch's first listing nor the ownership of
// fields sees it. The periodic full comparison (a server-side dry run of
// what roleout applies, schedule.driftCheckInterval) finds it, records it
// as drift at the field that differs and heals it.
func TestDriftFullComparison(t *testing.T) {
	t.Parallel()
	const ns = "drift-check"
	repo, _, stop := driftSetup(t, ns, "")
	stop()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "a-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	delete(cm.Data, "tag")
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	before, err := cluster.Writes("")
	if err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: "+ns+", path: apps/three, timeout: 30s}\nschedule: {interval: 1s, driftCheckInterval: 3s}\nhttp: {address: \"-\"}\n")
	out := &syncBuffer{}
	cmd := startRoleout(t, out, "run", "--config", config)
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	healed := false
	for deadline := time.Now().Add(time.Minute); !healed && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "a-config", metav1.GetOptions{})
		healed = err == nil && cm.Data["tag"] == "v1"
	}
	if !healed {
		t.Fatalf("data.tag of a-config, removed while no agent ran, was not put back:\n%s", out.String())
	}
	var d *status.Drift
	for deadline := time.Now().Add(time.Minute); d == nil && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		_, d = driftRecord(t, repo, ns, "ConfigMap/"+ns+"/a-config")
	}
	// The ConfigMap's only key gone, its data is gone: the path that
	// differs is data.
	if d == nil || !d.Compared || !d.Healed || !slices.Equal(d.Fields, []string{"data"}) {
		t.Errorf("drift record of a-config = %+v, want data found by the full comparison, healed", d)
	}
	after, err := cluster.Writes("")
	if err != nil {
		t.Fatal(err)
	}
	dryRuns := 0
	for _, w := range after[len(before):] {
		if w.DryRun && w.Namespace == ns {
			dryRuns++
		}
	}
	// The cost the docs name: one dry-run patch per namespaced object of
	// the app (8) per comparison.
	t.Logf("dry-run writes in %s since the agent started: %d", ns, dryRuns)
	if dryRuns == 0 {
		t.Error("the full comparison made no server-side dry run")
	}
}
