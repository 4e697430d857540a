package agent

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// TestFlightsFollowTheWaves reads Agent.Flights while each object is
// written: the prerequisite step, then each wave with its roles, the
// objects written so far counted; the wave's health wait counts the
// ready ones; and no flight is left once the rollout ends.
func TestFlightsFollowTheWaves(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	var seen []status.Flight
	var wake <-chan struct{}
	h.applier.afterApply = func(string) {
		fls, w := h.agent.Flights()
		seen = append(seen, fls["llm"])
		wake = w
	}
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []status.Flight{
		{App: "llm", Wave: 0, Waves: 3, Step: status.StepApplying, Objects: 1},
		{App: "llm", Wave: 1, Waves: 3, UpgradeOrder: 1, Roles: []string{"prefill"}, Step: status.StepApplying, Objects: 1},
		{App: "llm", Wave: 2, Waves: 3, UpgradeOrder: 2, Roles: []string{"decode"}, Step: status.StepApplying, Objects: 1},
		{App: "llm", Wave: 3, Waves: 3, UpgradeOrder: 3, Roles: []string{"router"}, Step: status.StepApplying, Objects: 1},
	}
	if diff := cmp.Diff(want, seen, cmpopts.IgnoreFields(status.Flight{}, "SourceRevision", "Started")); diff != "" {
		t.Errorf("flights while applying (-want +got):\n%s", diff)
	}
	for _, fl := range seen {
		if fl.SourceRevision != h.agent.apps["llm"].result.SourceRevision || fl.Started.IsZero() {
			t.Errorf("flight %+v: want the commit rolled out and a start", fl)
		}
	}
	select {
	case <-wake:
	default:
		t.Error("the last flight's channel was not closed by the changes after it")
	}
	if fls, _ := h.agent.Flights(); len(fls) != 0 {
		t.Errorf("flights after the rollout: %v, want none", fls)
	}
}

// TestFlightCountsReadyObjects: the apply's progress counts the objects
// written, the health wait's moves the flight to waiting with every
// object written and the ready ones counted; landing twice is landing
// once.
func TestFlightCountsReadyObjects(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	run := &appRun{a: h.agent, app: h.agent.cfg.Apps[0], steps: &rollout{plan: &model.Plan{Waves: make([]model.Wave, 2)},
		revision: sources.SourceRevision{Ref: "main", Commit: "abc"}}}
	applied, ready := run.takeOff(2, 5, []string{"decode"}, 4)
	applied(3, 4)
	fls, _ := h.agent.Flights()
	if got := fls["llm"]; got.Step != status.StepApplying || got.Applied != 3 || got.Objects != 4 || got.Wave != 2 || got.Waves != 2 || got.UpgradeOrder != 5 || got.SourceRevision != "main@sha1:abc" {
		t.Errorf("flight while applying: %+v", got)
	}
	ready(1, 4)
	fls, _ = h.agent.Flights()
	if got := fls["llm"]; got.Step != status.StepWaiting || got.Applied != 4 || got.Ready != 1 {
		t.Errorf("flight while waiting: %+v", got)
	}
	h.agent.flights.land("llm")
	h.agent.flights.land("llm")
	if fls, _ := h.agent.Flights(); len(fls) != 0 {
		t.Errorf("flights after landing: %v", fls)
	}
}
