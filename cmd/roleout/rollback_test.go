package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// rollbackOnce runs roleout rollback with args (it waits for the outcome)
// beside roleout run --once, which carries the request out once it is
// recorded, and returns what rollback exited with and printed.
func rollbackOnce(t *testing.T, config string, args ...string) (code int, out, logs string) {
	t.Helper()
	type result struct {
		code      int
		out, logs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, logs := cli(append([]string{"rollback", "--config", config, "--timeout", "2m"}, args...)...)
		done <- result{code, out, logs}
	}()
	for i := 0; ; i++ {
		select {
		case r := <-done:
			return r.code, r.out, r.logs
		case <-time.After(500 * time.Millisecond):
		}
		if i < 60 {
			cli("run", "--once", "--config", config)
		}
	}
}

// decodeRollback decodes roleout rollback --output json's one object.
func decodeRollback(t *testing.T, out string) status.RollbackResult {
	t.Helper()
	var res status.RollbackResult
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil || dec.More() {
		t.Fatalf("rollback --output json printed %q: %v", out, err)
	}
	return res
}

// TestRollbackThroughTheAgent: roleout rollback is a request the running
// agent carries out as a rollout. Asked while the app is suspended, it
// applies nothing and the status says the rollback waits; resumed, the
// agent rolls the head out with the role put back, prunes what left git,
// and holds the role (phase RolledBack) through later polls and through a
// commit that changes another role; the next resume ends the hold and
// git's version of the role comes back.
func TestRollbackThroughTheAgent(t *testing.T) {
	t.Parallel()
	const ns = "rollback-agent"
	repo, config, out := controlSetup(t, ns, "{interval: 2s}", ", prune: true")
	head, err := repo.Commit("main", "v2", threeWaves(ns, "v2"))
	if err != nil {
		t.Fatal(err)
	}
	if !waitForStatus(t, repo, ns, 2*time.Minute, succeededAt(head)) {
		t.Fatalf("v2 was not rolled out:\n%s", out.String())
	}
	controlCLI(t, "suspend", config, ns)
	// The head moves on while suspended: a at v3, c's ConfigMap gone.
	v3 := threeWaves(ns, "v2")
	v3["apps/three/a.yaml"] = threeWaves(ns, "v3")["apps/three/a.yaml"]
	v3["apps/three/c.yaml"] = v3["apps/three/c.yaml"][strings.Index(v3["apps/three/c.yaml"], "---\n")+4:]
	if head, err = repo.Commit("main", "a v3, no c-config", v3); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code      int
		out, logs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, logs := cli("rollback", "--config", config, "--app", ns, "--role", "b", "--to-revision", "1", "--output", "json", "--timeout", "2m")
		done <- result{code, out, logs}
	}()
	pending := func(st *status.App) bool {
		return st.Phase == status.PhaseSuspended && st.SourceRevision == "main@sha1:"+head && st.Rollback != nil && st.Rollback.State == status.RollbackPending &&
			strings.Contains(st.Rollback.Message, "not carried out yet: app is suspended")
	}
	if !waitForStatus(t, repo, ns, time.Minute, pending) {
		t.Fatalf("the suspended app's status does not say the rollback waits:\n%s", out.String())
	}
	if got := strings.Join(images(t, ns), " "); got != "registry.example/a:v2 registry.example/b:v2 registry.example/c:v2" {
		t.Fatalf("suspended, the cluster runs %s; want v2 everywhere", got)
	}
	if c := controlCLI(t, "resume", config, ns); c.Lifted != "suspension" || c.Rollback == nil {
		t.Fatalf("the first resume printed %+v, want the suspension lifted and the rollback kept", c)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatalf("rollback did not return:\n%s", out.String())
	}
	if r.code != exitOK {
		t.Fatalf("rollback exit %d:\n%s\n%s", r.code, r.logs, out.String())
	}
	res := decodeRollback(t, r.out)
	if res.State != status.RollbackHeld || res.Phase != status.PhaseRolledBack || res.RevisionNumber != 3 || res.Result != status.RoleApplied || res.StatusCommit == "" {
		t.Errorf("rollback printed %+v", res)
	}
	if got := strings.Join(images(t, ns), " "); got != "registry.example/a:v3 registry.example/b:v1 registry.example/c:v2" {
		t.Errorf("after the rollback the cluster runs %s; want a at the head's v3, b rolled back to v1, c at v2", got)
	}
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(context.Background(), "c-config", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("c-config left git before the rollback's rollout, which did not prune it: %v", err)
	}
	if inv, err := repo.Show("roleout/status", ns+"/inventory.yaml"); err != nil || strings.Contains(inv, "c-config") {
		t.Errorf("inventory after the rollback (%v):\n%s", err, inv)
	}
	st := readStatus(t, repo, ns)
	if got := statusRole(st, "b").AppliedSourceRevision; got == st.SourceRevision {
		t.Errorf("role b's applied revision is the head %s; want the commit that first rendered revision 1", got)
	}
	time.Sleep(5 * time.Second) // two polls: the hold keeps b where it is
	objs := threeWaves(ns, "v2")
	objs["apps/three/a.yaml"] = threeWaves(ns, "v4")["apps/three/a.yaml"]
	objs["apps/three/c.yaml"] = v3["apps/three/c.yaml"]
	if head, err = repo.Commit("main", "a v4", objs); err != nil {
		t.Fatal(err)
	}
	if !waitForStatus(t, repo, ns, time.Minute, func(st *status.App) bool {
		return st.SourceRevision == "main@sha1:"+head && st.Phase == status.PhaseRolledBack
	}) {
		t.Fatalf("a commit that changes role a alone ended the hold or failed:\n%s", out.String())
	}
	if got := strings.Join(images(t, ns), " "); got != "registry.example/a:v4 registry.example/b:v1 registry.example/c:v2" {
		t.Errorf("a commit of role a: the cluster runs %s; want b still held at v1", got)
	}
	if c := controlCLI(t, "resume", config, ns); c.Lifted != "rollback" {
		t.Fatalf("the second resume printed %+v, want the rollback ended", c)
	}
	if !waitForStatus(t, repo, ns, time.Minute, func(st *status.App) bool {
		return st.Phase == status.PhaseSucceeded && st.Rollback != nil && st.Rollback.State == status.RollbackEnded
	}) {
		t.Fatalf("resume did not end the hold:\n%s", out.String())
	}
	if got := strings.Join(images(t, ns), " "); got != "registry.example/a:v4 registry.example/b:v2 registry.example/c:v2" {
		t.Errorf("the hold ended: the cluster runs %s; want git's b:v2 back", got)
	}
}

// TestRollbackNobodyTakesItUp: with no agent running, roleout rollback
// says the request is recorded and who carries it out, then stops once
// no agent has taken it up within --pickup-timeout, saying so and that
// the request stays; roleout run --once then carries it out.
func TestRollbackNobodyTakesItUp(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	const ns = "rollback-nobody"
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, ns)
	config := writeConfig(t, repo.URL(), "- {name: "+ns+", path: apps/three, timeout: 30s}\n")
	for _, v := range []string{"v1", "v2"} {
		if _, err := repo.Commit("main", v, threeWaves(ns, v)); err != nil {
			t.Fatal(err)
		}
		if code, _, errOut := cli("run", "--once", "--config", config); code != exitOK {
			t.Fatalf("run --once at %s: exit %d: %s", v, code, errOut)
		}
	}
	start := time.Now()
	code, _, logs := cli("rollback", "--config", config, "--app", ns, "--role", "b", "--to-revision", "1", "--pickup-timeout", "3s")
	for _, want := range []string{"rollback recorded in ConfigMap", "the agent serving this config", "no agent took the request up within 3s", "the request stays"} {
		if !strings.Contains(logs, want) {
			t.Errorf("rollback with no agent: stderr lacks %q:\n%s", want, logs)
		}
	}
	if code != exitError || time.Since(start) > 2*time.Minute {
		t.Errorf("rollback with no agent: exit %d after %s; want %d once the pickup timeout ran out", code, time.Since(start), exitError)
	}
	if code, _, errOut := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("run --once after the request: exit %d: %s", code, errOut)
	}
	if st := readStatus(t, repo, ns); st.Rollback == nil || st.Rollback.State != status.RollbackHeld {
		t.Errorf("after run --once, the rollback is %+v; want Held", st.Rollback)
	}
}
