package main

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testcluster"
)

// slowWaves is threeWaves with minReadySeconds on every Deployment, so
// that each wave's health wait lasts a few seconds: time to kill the
// agent inside it.
func slowWaves(ns, tag string) map[string]string {
	files := threeWaves(ns, tag)
	for name, content := range files {
		files[name] = strings.ReplaceAll(content, "  replicas: 2\n", "  replicas: 2\n  minReadySeconds: 3\n")
	}
	return files
}

// appWritesList returns roleout's successful writes to the objects of
// namespace ns (and the namespace itself), oldest first.
func appWritesList(t *testing.T, ns string) []testcluster.Write {
	t.Helper()
	var out []testcluster.Write
	for _, w := range appWriteAttempts(t, ns) {
		if w.Code < 300 {
			out = append(out, w)
		}
	}
	return out
}

// appWriteAttempts returns roleout's writes to the objects of namespace
// ns (and the namespace itself), whatever their answer, oldest first.
func appWriteAttempts(t *testing.T, ns string) []testcluster.Write {
	t.Helper()
	writes, err := cluster.Writes("roleout/")
	if err != nil {
		t.Fatal(err)
	}
	var out []testcluster.Write
	for _, w := range writes {
		if w.DryRun || w.Resource == "events" {
			continue
		}
		if w.Namespace == ns || (w.Resource == "namespaces" && w.Name == ns) {
			out = append(out, w)
		}
	}
	return out
}

// checkWrittenOnce fails t unless each object in want was written once
// by roleout in namespace ns. A write the kill cut off counts as that
// one write when nothing wrote the object after it: the API server may
// have stored the object and then answered the vanished client with a
// server error (504 when the request context ends after the commit), so
// the resumed agent rightly found it up to date.
func checkWrittenOnce(t *testing.T, ns string, want []string) {
	t.Helper()
	ok, cut := map[string]int{}, map[string]int{}
	var log []string
	for _, w := range appWriteAttempts(t, ns) {
		key := w.Resource + "/" + w.Name
		log = append(log, fmt.Sprintf("%s %s %d", w.Verb, key, w.Code))
		switch {
		case w.Code < 300:
			ok[key]++
		case w.Code >= 500:
			cut[key]++
		}
	}
	for _, key := range want {
		if ok[key] == 1 || (ok[key] == 0 && cut[key] > 0) {
			delete(ok, key)
			continue
		}
		t.Errorf("%s written %d times (and cut off %d times), want once; writes:\n%s", key, ok[key], cut[key], strings.Join(log, "\n"))
		delete(ok, key)
	}
	for key, n := range ok {
		t.Errorf("unexpected writes to %s: %d", key, n)
	}
}

// waitForRoleWrite blocks until an object of role appears in namespace ns
// (roleout wrote it), or d passes.
func waitForRoleWrite(t *testing.T, cs kubernetes.Interface, ns, role string, d time.Duration) bool {
	t.Helper()
	sel := metav1.ListOptions{LabelSelector: object.RoleLabel + "=" + role}
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		cms, err1 := cs.CoreV1().ConfigMaps(ns).List(context.Background(), sel)
		ds, err2 := cs.AppsV1().Deployments(ns).List(context.Background(), sel)
		if err1 == nil && err2 == nil && len(cms.Items)+len(ds.Items) > 0 {
			return true
		}
	}
	return false
}

// the cluster ends at the newest commit.
func TestNewCommitDuringWave1(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	const ns = "newer-commit"
	_, repo, config := faultSetup(t, ns)
	if _, err := repo.Commit("main", "slow waves", slowWaves(ns, "v1")); err != nil {
		t.Fatal(err)
	}
	events := watchDeployments(t, cs, ns)
	var out syncBuffer
	cmd := startRoleout(t, &out, "run", "--config", config)
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	if !waitForRoleWrite(t, cs, ns, "a", time.Minute) {
		t.Fatalf("wave 1 never started:\n%s", out.String())
	}
	head, err := repo.Commit("main", "v2", slowWaves(ns, "v2"))
	if err != nil {
		t.Fatal(err)
	}
	if !waitForStatus(t, repo, ns, 2*time.Minute, succeededAt(head)) {
		t.Fatalf("the agent did not roll out the newer commit:\n%s", out.String())
	}
	checkConverged(t, repo, ns, ns, "v2")
	evs := events()
	// The waves of the newer commit keep their order: a role is updated
	// only after the role before it runs v2 and is available.
	order := []string{"a", "b", "c"}
	for i, ev := range evs {
		k := indexOf(order, ev.name)
		if strings.HasSuffix(ev.image, ":v1") && k > 0 {
			t.Errorf("Deployment %s was rolled out at v1 after v2 arrived during wave 1; events %+v", ev.name, evs)
		}
		if k <= 0 || !strings.HasSuffix(ev.image, ":v2") {
			continue
		}
		if !availableBefore(evs[:i], order[k-1], ":v2") {
			t.Errorf("Deployment %s got v2 (event %d) before %s was available at v2; events %+v", ev.name, i, order[k-1], evs)
			break
		}
	}
	if !strings.Contains(out.String(), "planning again from it") {
		t.Errorf("the agent did not say it planned again from the newer commit:\n%s", out.String())
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// availableBefore reports whether Deployment name was available at an
// image ending in suffix in one of evs.
func availableBefore(evs []deploymentEvent, name, suffix string) bool {
	for _, ev := range evs {
		if ev.name == name && ev.available && strings.HasSuffix(ev.image, suffix) {
			return true
		}
	}
	return false
}
