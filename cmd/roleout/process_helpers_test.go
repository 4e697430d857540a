package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// roleoutBinary returns the roleout command (testcluster.RoleoutBinary):
// process tests kill and restart it.
func roleoutBinary(t *testing.T) string {
	t.Helper()
	bin, err := testcluster.RoleoutBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// threeWaves returns an app of three roles, a (1) → b (2) → c (3), each a
// Deployment and a ConfigMap, in namespace ns, all at image tag.
func threeWaves(ns, tag string) map[string]string {
	files := map[string]string{
		"apps/three/kustomization.yaml": "namespace: " + ns + "\nresources: [namespace.yaml, a.yaml, b.yaml, c.yaml]\n",
		"apps/three/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n",
	}
	for i, role := range []string{"a", "b", "c"} {
		files["apps/three/"+role+".yaml"] = fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: %[1]s-config, annotations: {roleout.dev/role: %[1]s}}
data: {tag: "%[3]s"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, annotations: {roleout.dev/role: %[1]s, roleout.dev/upgrade-order: "%[2]d"}}
spec:
  replicas: 2
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec: {containers: [{name: main, image: "registry.example/%[1]s:%[3]s"}]}
`, role, i+1, tag)
	}
	return files
}

// checkConverged verifies the invariants a fault must never break
// (checkInvariants) and that the app succeeded at the repository's newest
// commit with every Deployment at tag and every object there.
func checkConverged(t *testing.T, repo *testgit.Repo, app, ns, tag string) {
	t.Helper()
	head, err := repo.Rev("refs/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	st := readStatus(t, repo, app)
	if st.Phase != status.PhaseSucceeded || st.SourceRevision != "main@sha1:"+head {
		t.Errorf("status %s at %s (%s), want Succeeded at the newest commit %s", st.Phase, st.SourceRevision, st.Message, head[:7])
	}
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, role := range []string{"a", "b", "c"} {
		d, err := cs.AppsV1().Deployments(ns).Get(ctx, role, metav1.GetOptions{})
		if err != nil {
			t.Errorf("Deployment %s: %v", role, err)
			continue
		}
		if img := d.Spec.Template.Spec.Containers[0].Image; !strings.HasSuffix(img, ":"+tag) {
			t.Errorf("Deployment %s runs %s, want tag %s", role, img, tag)
		}
		if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, role+"-config", metav1.GetOptions{}); err != nil {
			t.Errorf("ConfigMap %s-config: %v", role, err)
		}
	}
	checkInvariants(t, repo, app, ns)
}

// checkInvariants verifies what must hold after any fault, converged or
// not: each role's revision numbers and names are unique, no rollout
// record is there twice, and roleout deleted nothing in ns (nothing left
// git in the fault tests, so any delete would be a prune by mistake).
func checkInvariants(t *testing.T, repo *testgit.Repo, app, ns string) {
	t.Helper()
	rep, err := historyOf(t, repo, app)
	switch {
	case err != nil && strings.Contains(err.Error(), "has no status"):
		rep = &status.HistoryReport{} // killed before its first record
	case err != nil:
		t.Fatal(err)
	}
	for role, revs := range rep.Revisions {
		numbers, names := map[int64]bool{}, map[string]bool{}
		for _, r := range revs {
			if numbers[r.Number] || names[r.Name] {
				t.Errorf("role %s: revision %d (%s) recorded twice", role, r.Number, r.Name)
			}
			numbers[r.Number], names[r.Name] = true, true
		}
	}
	seen := map[string]bool{}
	for _, r := range rep.Rollouts {
		key := fmt.Sprintf("%s %s %v", r.SourceRevision, r.Started, r.Waves)
		if seen[key] {
			t.Errorf("rollout record %s recorded twice", key)
		}
		seen[key] = true
	}
	writes, err := cluster.Writes("roleout/")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		if w.Verb == "delete" && !w.DryRun && w.Resource != "events" && (w.Namespace == ns || (w.Resource == "namespaces" && w.Name == ns)) {
			t.Errorf("roleout deleted %s/%s in %s: nothing left git", w.Resource, w.Name, ns)
		}
	}
}

// historyOf reads an app's status, revisions and records from the status
// branch the way roleout history does.
func historyOf(t *testing.T, repo *testgit.Repo, app string) (*status.HistoryReport, error) {
	t.Helper()
	code, out, errOut := cli("history", "--config", writeConfig(t, repo.URL(), "- {name: "+app+", path: apps/three}\n"), "--app", app, "--output", "json")
	if code != exitOK {
		return nil, fmt.Errorf("history exit %d: %s", code, errOut)
	}
	var rep status.HistoryReport
	return &rep, yaml.Unmarshal([]byte(out), &rep)
}

// waitForStatus polls the status branch until cond holds for the app's
// status, or d passes.
func waitForStatus(t *testing.T, repo *testgit.Repo, app string, d time.Duration, cond func(*status.App) bool) bool {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		data, err := repo.Show("roleout/status", app+"/status.yaml")
		if err != nil {
			continue
		}
		var st status.App
		if yaml.Unmarshal([]byte(data), &st) == nil && cond(&st) {
			return true
		}
	}
	return false
}

// succeededAt is a waitForStatus condition: the app succeeded at commit
// head.
func succeededAt(head string) func(*status.App) bool {
	return func(st *status.App) bool {
		return st.SourceRevision == "main@sha1:"+head && st.Phase == status.PhaseSucceeded
	}
}

// faultSetup serves the three-wave app in namespace ns and writes an
// agent config for it (prune on, a short wave timeout, a 1s interval).
func faultSetup(t *testing.T, name string) (*testgit.Server, *testgit.Repo, string) {
	t.Helper()
	testcluster.Require(t, cluster)
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, name)
	if _, err := repo.Commit("main", "v1", threeWaves(name, "v1")); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: "+name+", path: apps/three, prune: true, timeout: 15s}\n")
	f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "schedule: {interval: 1s}\nhttp: {address: \"-\"}\n")
	f.Close()
	return srv, repo, config
}

// startRoleout starts the roleout binary with args; its output is kept
// for the test log.
func startRoleout(t *testing.T, out *syncBuffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(roleoutBinary(t), args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// startAgent starts roleout run --config config for the rest of the
// test: it is killed when the test ends, and its log shown when the test
// failed. It returns the log as the agent writes it, and the process.
func startAgent(t *testing.T, config string) (*syncBuffer, *exec.Cmd) {
	t.Helper()
	logs := &syncBuffer{}
	agent := startRoleout(t, logs, "run", "--config", config)
	t.Cleanup(func() {
		_ = agent.Process.Kill()
		_ = agent.Wait()
		if t.Failed() {
			t.Logf("roleout run:\n%s", lastLines(logs.String(), 60))
		}
	})
	return logs, agent
}

// converge runs roleout run --once until it succeeds (up to n times).
func converge(t *testing.T, config string, n int) {
	t.Helper()
	var logs syncBuffer
	for range n {
		logs.Reset()
		if err := startRoleout(t, &logs, "run", "--once", "--config", config).Wait(); err == nil {
			return
		}
	}
	t.Fatalf("roleout did not converge in %d runs; last:\n%s", n, logs.String())
}

// syncBuffer is a buffer a process writes to while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}
