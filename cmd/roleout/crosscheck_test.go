package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/status"
)

// TestRollbackCrossChecksTheCluster: someone with push rights rewrites a
// role revision on the status branch (another image) and asks for a
// rollback to it. The agent compares it with its own record in the
// cluster (the ControllerRevision it made), refuses, and applies nothing.
func TestRollbackCrossChecksTheCluster(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := webRepo(t, "crosscheck", "crosscheck")
	config := writeConfig(t, repo.URL(), "- {name: xcheck, path: apps/web}\n")
	runOnce := func() {
		t.Helper()
		if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
			t.Fatalf("run --once exit %d:\n%s", code, logs)
		}
	}
	runOnce()
	worker, _ := repo.Show("main", "apps/web/worker.yaml")
	if _, err := repo.Commit("main", "worker 2.0", map[string]string{"apps/web/worker.yaml": strings.Replace(worker, "worker:1.0", "worker:2.0", 1)}); err != nil {
		t.Fatal(err)
	}
	runOnce()
	code, out, errOut := cli("history", "--output", "json", "--config", config, "--app", "xcheck", "--role", "worker")
	if code != exitOK {
		t.Fatalf("history exit %d: %s", code, errOut)
	}
	var rep status.HistoryReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	rev1 := ""
	for _, r := range rep.Revisions["worker"] {
		if r.Number == 1 {
			rev1 = r.Name
		}
	}
	if rev1 == "" {
		t.Fatalf("no revision 1 of role worker in %s", out)
	}
	path := "xcheck/revisions/worker/" + rev1 + ".yaml"
	recorded, err := repo.Show("roleout/status", path)
	if err != nil || !strings.Contains(recorded, "worker:1.0") {
		t.Fatalf("revision file %s: %v\n%s", path, err, recorded)
	}
	forged := strings.Replace(recorded, "registry.example/worker:1.0", "registry.example/evil:6.6", 1)
	if _, err := repo.Commit("roleout/status", "forged revision", map[string]string{path: forged}); err != nil {
		t.Fatal(err)
	}
	code, out, logs := cli("rollback", "--output", "json", "--config", config, "--app", "xcheck", "--role", "worker", "--to-revision", "1")
	if code != exitError || !strings.Contains(logs, "differs from the agent's record in the cluster") {
		t.Fatalf("rollback to a forged revision: exit %d, want 2 naming the cluster's record:\n%s", code, logs)
	}
	if out != "" {
		t.Errorf("a refused rollback printed a result: %s", out)
	}
	d, err := cs.AppsV1().Deployments("crosscheck").Get(context.Background(), "worker", metav1.GetOptions{})
	if err != nil || d.Spec.Template.Spec.Containers[0].Image != "registry.example/worker:2.0" {
		t.Errorf("the forged revision reached the cluster: %v %v", d.Spec.Template.Spec.Containers, err)
	}
	// Put back as the agent wrote it, the same revision rolls back.
	if _, err := repo.Commit("roleout/status", "revert the forgery", map[string]string{path: recorded}); err != nil {
		t.Fatal(err)
	}
	code, out, logs = rollbackOnce(t, config, "--output", "json", "--app", "xcheck", "--role", "worker", "--to-revision", "1")
	if code != exitOK {
		t.Fatalf("rollback to the genuine revision: exit %d:\n%s", code, logs)
	}
	// --output json: one object with the result; the log is JSON too.
	res := decodeRollback(t, out)
	want := status.RollbackResult{App: "xcheck", Role: "worker", ToRevision: 1, RevisionNumber: 3, RevisionName: rev1, Hash: res.Hash,
		State: status.RollbackHeld, Phase: status.PhaseRolledBack, Result: status.RoleApplied, Message: res.Message, StatusCommit: res.StatusCommit}
	if res != want || res.Hash == "" || !strings.HasSuffix(rev1, "-"+res.Hash) || res.StatusCommit == "" || !strings.Contains(res.Message, "held at revision 3") {
		t.Errorf("rollback --output json = %+v, want %+v", res, want)
	}
	if st := statusRole(readStatus(t, repo, "xcheck"), "worker"); st == nil || st.RevisionNumber != res.RevisionNumber || st.RevisionName != res.RevisionName {
		t.Errorf("status of role worker %+v does not match the result %+v", st, res)
	}
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("rollback --output json logged a line that is not JSON: %q", line)
		}
	}
	if d, err := cs.AppsV1().Deployments("crosscheck").Get(context.Background(), "worker", metav1.GetOptions{}); err != nil ||
		d.Spec.Template.Spec.Containers[0].Image != "registry.example/worker:1.0" {
		t.Errorf("after the genuine rollback: %v %v", d.Spec.Template.Spec.Containers, err)
	}
}
