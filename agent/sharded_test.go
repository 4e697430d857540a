package agent

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// fakeOwner holds the apps of held; it counts the holds still open.
type fakeOwner struct {
	mu    sync.Mutex
	held  map[string]bool
	open  int
	begun []string
	// session ends every hold's context when cancelled.
	session context.Context
}

func (o *fakeOwner) Begin(ctx context.Context, app string) (context.Context, func(), bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.held[app] {
		return ctx, func() {}, false
	}
	o.open++
	o.begun = append(o.begun, app)
	actx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(o.session, func() { cancel(errors.New("session ended")) })
	return actx, func() {
		stop()
		cancel(nil)
		o.mu.Lock()
		o.open--
		o.mu.Unlock()
	}, true
}

// TestOwnerGatesEveryApp: under dynamic sharding a replica reconciles and
// records only the apps it holds, closes every hold it opens, and stops
// applying an app once it moved away.
func TestOwnerGatesEveryApp(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	other := h.agent.cfg.Apps[0]
	other.Name = "elsewhere"
	h.agent.cfg.Apps = append(h.agent.cfg.Apps, other)
	session, endSession := context.WithCancel(context.Background())
	owner := &fakeOwner{held: map[string]bool{"llm": true}, session: session}
	h.agent.owner = owner
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.status.files["elsewhere/status.yaml"]; ok {
		t.Errorf("the app another replica holds got a status from this one")
	}
	if st := h.appStatus(t); st.Phase != "Succeeded" {
		t.Errorf("the app held: phase %s (%s)", st.Phase, st.Message)
	}
	if owner.open != 0 || len(owner.begun) != 1 {
		t.Errorf("holds: %d open, begun %v; want one, closed", owner.open, owner.begun)
	}
	// The app moves away: a new commit is not applied by this replica.
	h.newCommit('b', threeRoles("decode:2"))
	applied := len(h.applier.applied)
	owner.mu.Lock()
	owner.held["llm"] = false
	owner.mu.Unlock()
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(h.applier.applied) != applied {
		t.Errorf("applied %v after the app moved away", h.applier.applied[applied:])
	}
	endSession()
}
