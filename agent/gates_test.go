package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/status"
)

// gateChange is a commit that changes no role: only the prerequisite
// step, or only the set of objects to prune.
type gateChange struct {
	name  string
	prune bool
	// objs is the second commit's render; applied and pruned what a
	// rollout of it does.
	objs            []*unstructured.Unstructured
	applied, pruned []string
}

// gateChanges are a second Namespace (a changed prerequisite step) and
// the router role leaving git (its Deployment pruned).
func gateChanges() []gateChange {
	extraNS := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "extra"}}}
	return []gateChange{
		{name: "prerequisites only", objs: append(threeRoles("decode:1"), extraNS), applied: []string{"app", "extra"}},
		{name: "prune only", prune: true, objs: threeRoles("decode:1")[:3], pruned: []string{"router"}},
	}
}

// gatedHarness rolls out threeRoles at commit a with the nightly window
// open, then makes commit b of c. The returned function sets the clock.
func gatedHarness(t *testing.T, c gateChange) (*harness, func(open bool)) {
	t.Helper()
	h := newHarness(threeRoles("decode:1"), func(a *config.App) {
		a.Prune = c.prune
		a.Windows = []config.Window{{Kind: "allow", Cron: "0 2 * * *", Duration: hours(2), TimeZone: "UTC"}}
	})
	now := time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)
	h.agent.deps.Clock = func() time.Time { return now }
	setOpen := func(open bool) {
		if now = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC); open {
			now = time.Date(2026, 11, 27, 2, 30, 0, 0, time.UTC)
		}
	}
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := h.appStatus(t); st.Phase != status.PhaseSucceeded {
		t.Fatalf("first rollout: %s", summary(st))
	}
	h.applier.applied, h.applier.pruned = nil, nil
	h.newCommit('b', c.objs)
	return h, setOpen
}

// TestWindowGatesPrerequisitesAndPrune: outside the app's windows a
// commit that changes only the prerequisite step, or only removes
// objects (prune on), writes and deletes nothing and waits; inside the
// next window it is rolled out.
func TestWindowGatesPrerequisitesAndPrune(t *testing.T) {
	for _, c := range gateChanges() {
		t.Run(c.name, func(t *testing.T) {
			h, setOpen := gatedHarness(t, c)
			setOpen(false)
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			st := h.appStatus(t)
			if st.Phase != status.PhaseWaiting || !strings.Contains(st.Message, "the next window opens at 2026-11-28T02:00:00Z") {
				t.Errorf("outside the window: phase %s, message %q; want %s", st.Phase, st.Message, status.PhaseWaiting)
			}
			if len(h.applier.applied) != 0 || len(h.applier.pruned) != 0 {
				t.Fatalf("outside the window: applied %v, pruned %v; want nothing", h.applier.applied, h.applier.pruned)
			}
			setOpen(true)
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			if st := h.appStatus(t); st.Phase != status.PhaseSucceeded {
				t.Errorf("inside the window: %s, %q", summary(st), st.Message)
			}
			got := fmt.Sprintf("applied %v, pruned %v", h.applier.applied, h.applier.pruned)
			if want := fmt.Sprintf("applied %v, pruned %v", c.applied, c.pruned); got != want {
				t.Errorf("inside the window: %s; want %s", got, want)
			}
		})
	}
}

// TestWindowLetsPruneOffThrough: with prune off, objects that left git
// are not deleted, so outside a window such a commit has nothing to wait
// for and succeeds.
func TestWindowLetsPruneOffThrough(t *testing.T) {
	c := gateChanges()[1]
	c.prune = false
	h, setOpen := gatedHarness(t, c)
	setOpen(false)
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := h.appStatus(t); st.Phase != status.PhaseSucceeded || len(h.applier.applied) != 0 || len(h.applier.pruned) != 0 {
		t.Errorf("prune off, outside the window: %s, applied %v, pruned %v; want Succeeded, nothing written",
			summary(st), h.applier.applied, h.applier.pruned)
	}
}

// TestPausedGatesPrerequisitesAndPrune: a paused app applies no
// prerequisite step and prunes nothing, even inside its window; resumed,
// it rolls both out.
func TestPausedGatesPrerequisitesAndPrune(t *testing.T) {
	for _, c := range gateChanges() {
		t.Run(c.name, func(t *testing.T) {
			h, setOpen := gatedHarness(t, c)
			setOpen(true)
			h.agent.cfg.Apps[0].Paused = true
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			if st := h.appStatus(t); st.Phase != status.PhasePaused || len(h.applier.applied) != 0 || len(h.applier.pruned) != 0 {
				t.Fatalf("paused: phase %s, applied %v, pruned %v; want %s, nothing written", st.Phase, h.applier.applied, h.applier.pruned, status.PhasePaused)
			}
			h.agent.cfg.Apps[0].Paused = false
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fmt.Sprint(c.applied, c.pruned), fmt.Sprint(h.applier.applied, h.applier.pruned)); diff != "" {
				t.Errorf("resumed: applied and pruned (-want +got):\n%s", diff)
			}
		})
	}
}
