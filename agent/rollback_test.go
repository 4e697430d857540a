package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/status"
)

// rollbackData is the control data of a rollback request of app llm's
// role to revision n, named by at.
func rollbackData(role string, n int64, at string) map[string]string {
	return map[string]string{"llm.rollbackRole": role, "llm.rollbackTo": fmt.Sprint(n), "llm.rollbackRequestedAt": at, "llm.rollbackBy": "alice"}
}

// rollbackHarness is a harness with a control ConfigMap whose decode role
// has two revisions (decode:1, decode:2 applied).
func rollbackHarness(t *testing.T, mutate func(*config.App), setup ...func(*harness)) (*harness, *fakeControl) {
	t.Helper()
	h := newHarness(threeRoles("decode:1"), mutate)
	for _, f := range setup {
		f(h)
	}
	ctl := &fakeControl{}
	h.agent.control = control.NewCopy(ctl, h.agent.log, h.agent.servesApp, h.agent.controlChanged)
	h.twoDecodeRevisions(t)
	h.applier.applied = nil
	return h, ctl
}

// setControl changes the control ConfigMap as the running agent's watch
// would see it: the app is planned again at the next poll.
func (h *harness) setControl(ctl *fakeControl, data map[string]string) {
	ctl.set(data)
	h.agent.controlChanged([]string{"llm"})
}

// runOnce runs the agent once and returns the app's status and what was
// applied.
func (h *harness) runOnce(t *testing.T) (*status.App, []string) {
	t.Helper()
	h.applier.applied, h.applier.appliedNS = nil, nil
	_ = h.agent.RunOnce(context.Background())
	return h.appStatus(t), h.applier.applied
}

// TestRollbackIsARollout: a rollback request is carried out by the
// reconcile, recorded as a rollback of the role to its next revision,
// stamped with the source revision it was first rendered from, and held:
// the same head applies nothing more, a commit that changes another role
// rolls that role out and keeps the hold, and a commit that changes the
// held role ends it.
func TestRollbackIsARollout(t *testing.T) {
	h, ctl := rollbackHarness(t, nil)
	h.setControl(ctl, rollbackData("decode", 1, "t1"))
	st, applied := h.runOnce(t)
	if !slices.Equal(applied, []string{"decode"}) || summary(st) != "RolledBack prefill:Unchanged:1 decode:Applied:3 router:Unchanged:1" {
		t.Fatalf("rollback: applied %v, status %s", applied, summary(st))
	}
	rb := st.Rollback
	if rb == nil || rb.State != status.RollbackHeld || rb.RevisionNumber != 3 || rb.ToRevision != 1 || rb.RequestedBy != "alice" || rb.GitHash == "" {
		t.Errorf("rollback record %+v", rb)
	}
	if !strings.Contains(st.Message, "held at revision 3") || !strings.Contains(st.Message, "roleout resume --app llm") {
		t.Errorf("message %q does not say the role is held and how to end it", st.Message)
	}
	if got := st.Role("decode").AppliedSourceRevision; got != "main@sha1:"+strings.Repeat("a", 40) {
		t.Errorf("decode applied from %q, want the first commit's revision, which rendered revision 1", got)
	}
	if last := h.status.commits[len(h.status.commits)-1]; !strings.HasSuffix(last, "(rollback) (main@sha1:bbbbbbb)") {
		t.Errorf("commit message %q", last)
	}
	recs, err := status.ReadHistory(h.status.files, "llm")
	if err != nil || recs[len(recs)-1].Trigger != "rollback" {
		t.Errorf("history's last record: %+v %v", recs[len(recs)-1], err)
	}
	if st, applied = h.runOnce(t); len(applied) != 0 || st.Phase != status.PhaseRolledBack {
		t.Errorf("the same head again applied %v, phase %s; want nothing, RolledBack", applied, st.Phase)
	}
	objs := threeRoles("decode:2")
	objs[3] = roleDeployment("router", "router", 3, "router:2")
	h.newCommit('c', objs)
	if st, applied = h.runOnce(t); !slices.Equal(applied, []string{"router"}) || st.Rollback.State != status.RollbackHeld || st.Role("decode").RevisionNumber != 3 {
		t.Errorf("a commit that changes router: applied %v, rollback %+v, decode %+v; want router alone, decode held", applied, st.Rollback, st.Role("decode"))
	}
	objs[2] = roleDeployment("decode", "decode", 2, "decode:3")
	h.newCommit('d', objs)
	if st, applied = h.runOnce(t); !slices.Equal(applied, []string{"decode"}) || st.Rollback.State != status.RollbackEnded || st.Phase != status.PhaseSucceeded {
		t.Errorf("a commit that changes decode: applied %v, phase %s, rollback %+v; want decode, Succeeded, Ended", applied, st.Phase, st.Rollback)
	}
}

// TestRollbackWaitsForGates: a rollback of a suspended app applies
// nothing and stays pending; resumed, it is carried out; its hold ended
// by resume, git's version comes back.
func TestRollbackWaitsForGates(t *testing.T) {
	h, ctl := rollbackHarness(t, nil)
	data := suspendedData()
	for k, v := range rollbackData("decode", 1, "t1") {
		data[k] = v
	}
	h.setControl(ctl, data)
	st, applied := h.runOnce(t)
	if len(applied) != 0 || st.Phase != status.PhaseSuspended || st.Rollback.State != status.RollbackPending ||
		!strings.Contains(st.Rollback.Message, "not carried out yet: app is suspended by alice") {
		t.Errorf("suspended: applied %v, phase %s, rollback %+v", applied, st.Phase, st.Rollback)
	}
	h.setControl(ctl, rollbackData("decode", 1, "t1"))
	if st, applied = h.runOnce(t); !slices.Equal(applied, []string{"decode"}) || st.Rollback.State != status.RollbackHeld {
		t.Errorf("resumed: applied %v, rollback %+v", applied, st.Rollback)
	}
	h.setControl(ctl, nil)
	st, applied = h.runOnce(t)
	if !slices.Equal(applied, []string{"decode"}) || st.Phase != status.PhaseSucceeded || st.Rollback.State != status.RollbackEnded ||
		st.Role("decode").RevisionNumber != 4 {
		t.Errorf("hold ended: applied %v, phase %s, rollback %+v, decode %+v", applied, st.Phase, st.Rollback, st.Role("decode"))
	}
	if st, applied = h.runOnce(t); len(applied) != 0 || st.Rollback.State != status.RollbackEnded {
		t.Errorf("after the end: applied %v, rollback %+v", applied, st.Rollback)
	}
}

// TestRollbackRetriesOtherRoles: a role that failed at the head is
// retried by the rollback's rollout, which holds the rolled-back role; the
// app stays Failed while it fails.
func TestRollbackRetriesOtherRoles(t *testing.T) {
	h, ctl := rollbackHarness(t, nil)
	objs := threeRoles("decode:2")
	objs[3] = roleDeployment("router", "router", 3, "router:2")
	h.newCommit('c', objs)
	h.applier.failHealth = "router"
	if st, _ := h.runOnce(t); st.Phase != status.PhaseFailed {
		t.Fatalf("router failing: phase %s", st.Phase)
	}
	h.applier.failHealth = ""
	h.setControl(ctl, rollbackData("decode", 1, "t1"))
	st, applied := h.runOnce(t)
	if !slices.Equal(applied, []string{"decode", "router"}) || st.Phase != status.PhaseRolledBack || st.Role("router").Result != status.RoleApplied {
		t.Errorf("rollback: applied %v, status %s", applied, summary(st))
	}
}

// TestRollbackRefused: a request for a revision the role does not have,
// or is at, is refused once and recorded so; git's version stands.
func TestRollbackRefused(t *testing.T) {
	for _, tc := range []struct {
		role    string
		rev     int64
		wantErr string
	}{
		{"decode", 7, "has no revision 7 (recorded: 1, 2)"},
		{"decode", 2, "already at revision 2"},
		{"nope", 1, "role nope of app llm has no revision 1"},
	} {
		h, ctl := rollbackHarness(t, nil)
		if err := h.agent.CheckRollback(context.Background(), "llm", tc.role, tc.rev); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("CheckRollback %s to %d: %v, want %q", tc.role, tc.rev, err, tc.wantErr)
		}
		h.setControl(ctl, rollbackData(tc.role, tc.rev, "t1"))
		st, applied := h.runOnce(t)
		if len(applied) != 0 || st.Phase != status.PhaseSucceeded || st.Rollback.State != status.RollbackRefused || !strings.Contains(st.Rollback.Message, tc.wantErr) {
			t.Errorf("rollback %s to %d: applied %v, phase %s, rollback %+v", tc.role, tc.rev, applied, st.Phase, st.Rollback)
		}
		if _, applied = h.runOnce(t); len(applied) != 0 {
			t.Errorf("a refused request applied %v the next time", applied)
		}
	}
}

// TestRollbackUsesTheAppsCluster: an app of another cluster is rolled
// back there, not on the agent's own cluster.
func TestRollbackUsesTheAppsCluster(t *testing.T) {
	far := &fakeApplier{}
	h, ctl := rollbackHarness(t, func(a *config.App) { a.Kubeconfig = "far.yaml" }, func(h *harness) {
		h.agent.deps.ClusterFor = func(context.Context, config.App) (Cluster, error) { return far, nil }
	})
	far.applied = nil
	h.setControl(ctl, rollbackData("decode", 1, "t1"))
	if _, applied := h.runOnce(t); len(applied) != 0 || !slices.Equal(far.applied, []string{"decode"}) {
		t.Errorf("rollback applied %v on the agent's cluster and %v on the app's; want only decode on the app's", applied, far.applied)
	}
}

// TestRollbackOutcome: the CLI reads the request's outcome from the
// status branch, and nothing for another request.
func TestRollbackOutcome(t *testing.T) {
	h, ctl := rollbackHarness(t, nil)
	h.setControl(ctl, rollbackData("decode", 1, "t1"))
	h.runOnce(t)
	res, err := h.agent.RollbackOutcome(context.Background(), "llm", "t1")
	if err != nil {
		t.Fatal(err)
	}
	want := &status.RollbackResult{App: "llm", Role: "decode", ToRevision: 1, RevisionNumber: 3, RevisionName: res.RevisionName, Hash: res.Hash,
		State: status.RollbackHeld, Phase: status.PhaseRolledBack, Result: status.RoleApplied, Message: res.Message, StatusCommit: "c0ffee"}
	if diff := cmp.Diff(want, res); diff != "" || res.RevisionName == "" || !strings.HasSuffix(res.RevisionName, res.Hash) {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	if res, err := h.agent.RollbackOutcome(context.Background(), "llm", "t0"); res != nil || err != nil {
		t.Errorf("another request's outcome: %+v %v", res, err)
	}
}

// TestRollbackWaitsWhilePaused: a paused app (config) carries no
// rollback out; unpaused, it does.
func TestRollbackWaitsWhilePaused(t *testing.T) {
	h, ctl := rollbackHarness(t, nil)
	h.agent.cfg.Apps[0].Paused = true
	h.setControl(ctl, rollbackData("decode", 1, "t1"))
	st, applied := h.runOnce(t)
	if len(applied) != 0 || st.Phase != status.PhasePaused || st.Rollback.State != status.RollbackPending {
		t.Errorf("paused: applied %v, phase %s, rollback %+v", applied, st.Phase, st.Rollback)
	}
	h.agent.cfg.Apps[0].Paused = false
	if st, applied = h.runOnce(t); !slices.Equal(applied, []string{"decode"}) || st.Rollback.State != status.RollbackHeld {
		t.Errorf("unpaused: applied %v, rollback %+v", applied, st.Rollback)
	}
}

// TestRollbackFailedBacksOff: a rollback whose wave does not get healthy
// is Failed and retried as a failed commit is, after its backoff; a new
// request is not held back by it.
func TestRollbackFailedBacksOff(t *testing.T) {
	h, ctl := rollbackHarness(t, nil)
	h.agent.backoffRetries = true // as the running loop does
	h.applier.failHealth = "decode"
	h.setControl(ctl, rollbackData("decode", 1, "t1"))
	st, applied := h.runOnce(t)
	if !slices.Equal(applied, []string{"decode"}) || st.Phase != status.PhaseFailed || st.Rollback.State != status.RollbackFailed || st.RetryAfter == nil {
		t.Fatalf("failed rollback: applied %v, phase %s, rollback %+v, retry %v", applied, st.Phase, st.Rollback, st.RetryAfter)
	}
	h.applier.failHealth = ""
	h.agent.controlChanged([]string{"llm"})
	if st, applied = h.runOnce(t); len(applied) != 0 || st.Rollback.State != status.RollbackFailed {
		t.Errorf("before its backoff: applied %v, rollback %+v; want nothing", applied, st.Rollback)
	}
	// Revision 1 became 3 when the rollback was tried: a new request names
	// 3.
	h.setControl(ctl, rollbackData("decode", 3, "t2"))
	if st, applied = h.runOnce(t); !slices.Equal(applied, []string{"decode"}) || st.Rollback.State != status.RollbackHeld {
		t.Errorf("a new request: applied %v, rollback %+v; want it carried out at once", applied, st.Rollback)
	}
}

// TestRollbackHeldThroughAFailure: a reconcile that fails before it plans
// (the app's cluster unreachable) keeps the hold on record, so the next
// one keeps the role where it was put back.
func TestRollbackHeldThroughAFailure(t *testing.T) {
	far := &fakeApplier{}
	var down error
	h, ctl := rollbackHarness(t, func(a *config.App) { a.Kubeconfig = "far.yaml" }, func(h *harness) {
		h.agent.deps.ClusterFor = func(context.Context, config.App) (Cluster, error) { return far, down }
	})
	h.setControl(ctl, rollbackData("decode", 1, "t1"))
	if st, _ := h.runOnce(t); st.Rollback.State != status.RollbackHeld {
		t.Fatalf("rollback %+v", st.Rollback)
	}
	down = errors.New("connection refused")
	h.agent.controlChanged([]string{"llm"})
	if st, _ := h.runOnce(t); st.Phase != status.PhaseFailed || st.Rollback == nil || st.Rollback.State != status.RollbackHeld {
		t.Fatalf("cluster down: phase %s, rollback %+v; want Failed, the hold on record", st.Phase, st.Rollback)
	}
	down, far.applied = nil, nil
	st, _ := h.runOnce(t)
	if len(far.applied) != 0 || st.Phase != status.PhaseRolledBack || st.Role("decode").RevisionNumber != 3 {
		t.Errorf("cluster back: applied %v, phase %s, decode %+v; want the role still held, nothing applied", far.applied, st.Phase, st.Role("decode"))
	}
}
