package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// roleoutBinary builds the roleout command once per test binary: fault
// tests kill and restart it as a process.
func roleoutBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		root, err := testcluster.ModuleRoot()
		if err != nil {
			binaryErr = err
			return
		}
		dir, err := os.MkdirTemp("", "roleout-bin-")
		if err != nil {
			binaryErr = err
			return
		}
		binaryPath = filepath.Join(dir, "roleout")
		cmd := exec.Command("go", "build", "-o", binaryPath, "./cmd/roleout")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			binaryErr = fmt.Errorf("build roleout: %v\n%s", err, out)
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
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
