package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/status"
)

// TestPlanAfterPausedRollout: a paused reconcile records the new
// revision of a changed role in the history but not as applied, so the
// decision against the history is unchanged; roleout plan --config still
// says the role is changed, because the next reconcile applies it, and
// that reconcile writes only that role.
func TestPlanAfterPausedRollout(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	const app = "planpending"
	repo, _ := webRepo(t, app, app)
	config := writeConfig(t, repo.URL(), "- {name: "+app+", path: apps/web}\n")
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("first run --once exit %d:\n%s", code, logs)
	}
	worker, err := os.ReadFile("testdata/web/worker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Commit("main", "worker 2.0", map[string]string{
		"apps/web/worker.yaml": strings.Replace(string(worker), "worker:1.0", "worker:2.0", 1),
	}); err != nil {
		t.Fatal(err)
	}
	paused := writeConfig(t, repo.URL(), "- {name: "+app+", path: apps/web, paused: true}\n")
	if code, _, logs := cli("run", "--once", "--config", paused); code != exitOK {
		t.Fatalf("paused run --once exit %d:\n%s", code, logs)
	}
	st := readStatus(t, repo, app)
	if st.Phase != status.PhasePaused || roleSummary(st) != "db:Unchanged:1 api:Unchanged:1 worker:Pending:1" {
		t.Fatalf("paused status: %s %s", st.Phase, roleSummary(st))
	}

	s := planJSON(t, "plan", "--config", config, "--app", app)
	var planned []string
	for _, w := range s.Waves {
		for _, r := range w.Roles {
			planned = append(planned, fmt.Sprintf("%s:%v:%s:%d", r.Name, r.Changed, r.Action, r.RevisionNumber))
			for _, wl := range r.Workloads {
				if wl.RestartsPods != (r.Name == "worker") {
					t.Errorf("plan workload %s/%s restartsPods %v: only worker's pods restart", wl.Kind, wl.Name, wl.RestartsPods)
				}
			}
		}
	}
	// The history already holds worker's rev 2 (the paused reconcile
	// recorded it), so its action is unchanged; the status applies rev 1.
	if got := strings.Join(planned, " "); got != "db:false:unchanged:1 api:false:unchanged:1 worker:true:unchanged:2" {
		t.Errorf("plan after a paused reconcile = %s, want worker changed (not yet applied), at rev 2", got)
	}
	if code, out, errOut := cli("plan", "--config", config, "--app", app); code != exitOK || !strings.Contains(out, " "+model.Pending+" ") {
		t.Errorf("text plan: exit %d, %s; want worker %s:\n%s", code, errOut, model.Pending, out)
	}

	before := roleoutWrites(t, app)
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("resumed run --once exit %d:\n%s", code, logs)
	}
	if got := diffCounts(before, roleoutWrites(t, app)); fmt.Sprint(got) != "map[deployments/worker:1]" {
		t.Errorf("writes of the resumed rollout = %v, want one patch of deployments/worker, as plan said", got)
	}
	if st := readStatus(t, repo, app); st.Phase != status.PhaseSucceeded || roleSummary(st) != "db:Unchanged:1 api:Unchanged:1 worker:Applied:2" {
		t.Errorf("status after the resumed rollout: %s %s", st.Phase, roleSummary(st))
	}
}
