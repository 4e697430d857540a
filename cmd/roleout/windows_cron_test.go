package main

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// TestWindowsEndToEnd: an app whose only allow window opens on New
// Year's Day is planned and held, WaitingForWindow with the next opening,
// and nothing reaches its namespace; with a window open now the same
// commit rolls out. A rollback asked outside the window waits for it too.
func TestWindowsEndToEnd(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	const ns = "windows-e2e"
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, ns)
	head, err := repo.Commit("main", "v1", threeWaves(ns, "v1"))
	if err != nil {
		t.Fatal(err)
	}
	app := "- {name: " + ns + ", path: apps/three, timeout: 30s, windows: [%s]}\n"
	closed := writeConfig(t, repo.URL(), strings.Replace(app, "%s", `{kind: allow, cron: "0 0 1 1 *", duration: 1h, timeZone: UTC}`, 1))
	if code, _, logs := cli("run", "--once", "--config", closed); code != exitOK {
		t.Fatalf("run --once outside the window: exit %d\n%s", code, logs)
	}
	st := readStatus(t, repo, ns)
	if st.Phase != status.PhaseWaiting || !strings.Contains(st.Message, "the next window opens at "+nextNewYear()) {
		t.Errorf("status outside the window = %s %q, want %s and the next opening, %s", st.Phase, st.Message, status.PhaseWaiting, nextNewYear())
	}
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(context.Background(), ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Namespace %s outside the window: %v, want none", ns, err)
	}
	open := writeConfig(t, repo.URL(), strings.Replace(app, "%s", `{kind: allow, cron: "* * * * *", duration: 2m, timeZone: UTC}`, 1))
	if code, _, logs := cli("run", "--once", "--config", open); code != exitOK {
		t.Fatalf("run --once inside the window: exit %d\n%s", code, logs)
	}
	if st := readStatus(t, repo, ns); !succeededAt(head)(st) {
		t.Errorf("status inside the window = %s %q, want Succeeded at %s", st.Phase, st.Message, head[:7])
	}

	// A rollback waits for the window as a commit does.
	if head, err = repo.Commit("main", "v2", threeWaves(ns, "v2")); err != nil {
		t.Fatal(err)
	}
	if code, _, logs := cli("run", "--once", "--config", open); code != exitOK {
		t.Fatalf("run --once of v2: exit %d\n%s", code, logs)
	}
	if code, _, logs := cli("rollback", "--config", closed, "--app", ns, "--role", "b", "--to-revision", "1", "--wait=false"); code != exitOK {
		t.Fatalf("rollback: exit %d\n%s", code, logs)
	}
	if code, _, logs := cli("run", "--once", "--config", closed); code != exitOK {
		t.Fatalf("run --once outside the window: exit %d\n%s", code, logs)
	}
	if st := readStatus(t, repo, ns); st.Phase != status.PhaseWaiting || st.Rollback == nil || st.Rollback.State != status.RollbackPending {
		t.Errorf("a rollback outside the window: %s %q, rollback %+v; want WaitingForWindow, the rollback pending", st.Phase, st.Message, st.Rollback)
	}
	if got := strings.Join(images(t, ns), " "); got != "registry.example/a:v2 registry.example/b:v2 registry.example/c:v2" {
		t.Errorf("outside the window the rollback changed the cluster: %s", got)
	}
	if code, _, logs := cli("run", "--once", "--config", open); code != exitOK {
		t.Fatalf("run --once inside the window: exit %d\n%s", code, logs)
	}
	if st := readStatus(t, repo, ns); st.Phase != status.PhaseRolledBack || images(t, ns)[1] != "registry.example/b:v1" {
		t.Errorf("inside the window: %s %q, images %v; want RolledBack with b at v1", st.Phase, st.Message, images(t, ns))
	}
}

// nextNewYear is the next 1 January, 00:00 UTC, as statuses write it.
func nextNewYear() string {
	return time.Date(time.Now().UTC().Year()+1, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
}

// TestCronScheduleEndToEnd: an agent polling on a cron schedule (every
// second, the seconds field being optional) with no webhook and no
// interval finds a new commit and rolls it out.
func TestCronScheduleEndToEnd(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	const ns = "cron-e2e"
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, ns)
	first, err := repo.Commit("main", "v1", threeWaves(ns, "v1"))
	if err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: "+ns+", path: apps/three, timeout: 30s}\nschedule: {cron: \"* * * * * *\", timeZone: UTC}\nhttp: {address: \"-\"}\n")
	out := &syncBuffer{}
	cmd := startRoleout(t, out, "run", "--config", config)
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	if !waitForStatus(t, repo, ns, 2*time.Minute, succeededAt(first)) {
		t.Fatalf("the first commit was not rolled out:\n%s", out.String())
	}
	second, err := repo.Commit("main", "v2", threeWaves(ns, "v2"))
	if err != nil {
		t.Fatal(err)
	}
	if !waitForStatus(t, repo, ns, time.Minute, succeededAt(second)) {
		t.Fatalf("the cron schedule never polled the second commit:\n%s", out.String())
	}
}
