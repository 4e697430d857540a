package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/status"
)

// plannedAgainstStatus plans the harness's current commit against the
// status it recorded, as roleout plan --config does (PlanFromGit), and
// returns each role as "name:changed:action:restartsPods".
func plannedAgainstStatus(t *testing.T, h *harness) string {
	t.Helper()
	ctx := context.Background()
	prev, err := status.Load(ctx, h.status, "llm")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := h.agent.planning().plan(ctx, planRequest{snap: h.fetcher.snap, app: h.agent.cfg.Apps[0], prev: prev, cluster: h.agent.deps.Cluster})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range newRollout(h.fetcher.snap.Revision, plan, prev.Status).summarize().Waves {
		for _, r := range w.Roles {
			restarts := false
			for _, wl := range r.Workloads {
				restarts = restarts || wl.RestartsPods
			}
			out = append(out, fmt.Sprintf("%s:%v:%s:%v", r.Name, r.Changed, r.Action, restarts))
		}
	}
	return strings.Join(out, " ")
}

// TestPlanChangedIsWhatTheAgentApplies: after a rollout that did not
// apply decode (outside the window, or its wave failed), decode's
// revision is in the history, so its decision is unchanged; the plan
// still says it is changed and restarts pods, and the next reconcile
// applies exactly the roles the plan calls changed.
func TestPlanChangedIsWhatTheAgentApplies(t *testing.T) {
	const want = "prefill:false:unchanged:false decode:true:unchanged:true router:false:unchanged:false"
	for name, block := range map[string]func(h *harness) (undo func()){
		"outside the window": func(h *harness) func() {
			now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
			h.agent.cfg.Apps[0].Windows = []config.Window{{Kind: "allow", Cron: "0 2 * * *", Duration: hours(2), TimeZone: "UTC"}}
			h.agent.deps.Clock = func() time.Time { return now }
			return func() { now = time.Date(2026, 11, 27, 2, 30, 0, 0, time.UTC) }
		},
		"a failed wave": func(h *harness) func() {
			h.applier.failHealth = "decode"
			return func() { h.applier.failHealth = "" }
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(threeRoles("decode:1"), nil)
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			h.newCommit('b', threeRoles("decode:2"))
			undo := block(h)
			_ = h.agent.RunOnce(context.Background())
			if st := h.appStatus(t); st.Phase == status.PhaseSucceeded || st.Roles[1].RevisionNumber != 1 {
				t.Fatalf("the blocked rollout: %s", summary(st))
			}
			if got := plannedAgainstStatus(t, h); got != want {
				t.Errorf("plan = %s\nwant   %s", got, want)
			}
			undo()
			h.applier.applied = nil
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(h.applier.applied); got != "[decode]" {
				t.Errorf("the next reconcile applied %s, want [decode], the role the plan called changed", got)
			}
			if st := h.appStatus(t); !st.Roles[1].Workloads[0].RestartsPods {
				t.Errorf("decode's workload after the rollout: %+v; want restartsPods", st.Roles[1].Workloads[0])
			}
		})
	}
}
