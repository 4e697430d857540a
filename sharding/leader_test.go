package sharding

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// TestElectionReadiness: readiness does not depend on leadership. A
// replica standing by in leader election, which never polls, is ready
// once it has read the Lease; the leader is ready once it has polled; a
// callback that comes after the lease was lost does not make a leader.
func TestElectionReadiness(t *testing.T) {
	e := &Election{}
	expect := func(step string, polled bool, wantMsg string, wantOK, wantElecting bool) {
		t.Helper()
		if msg, ok, electing := e.Readiness(polled); msg != wantMsg || ok != wantOK || electing != wantElecting {
			t.Errorf("%s: Readiness = %q %v %v, want %q %v %v", step, msg, ok, electing, wantMsg, wantOK, wantElecting)
		}
	}
	const standingBy = "ok: standing by, not leading"
	expect("no election", false, "", false, false)
	e.start()
	expect("election started, Lease not read", false, "standing by: the leader election Lease has not been read from the API server yet", false, true)
	e.reached()
	expect("standby", false, standingBy, true, true)

	ctx, lost := context.WithCancel(context.Background())
	if !e.lead(ctx) {
		t.Fatal("lead refused a live lease")
	}
	expect("leader before its first poll", false, "leading: no poll has completed yet", false, true)
	expect("leader after a poll", true, "ok: leading", true, true)
	lost()
	if !e.standBy() {
		t.Error("standBy: the replica did not count as having led")
	}
	expect("standby again", true, standingBy, true, true)
	if e.lead(ctx) {
		t.Error("lead accepted a lease whose context had ended")
	}
	expect("a late leader callback", true, standingBy, true, true)
	e.stop()
	expect("election stopped", true, "", false, false)
}

// fakeLock is a Lease lock whose Get returns err.
type fakeLock struct {
	resourcelock.Interface
	err error
}

func (l fakeLock) Get(context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	if l.err != nil {
		return nil, nil, l.err
	}
	return &resourcelock.LeaderElectionRecord{HolderIdentity: "other"}, []byte("{}"), nil
}

// TestObservedLock: a read of the Lease that reached the API server
// (found, or not found yet) makes a standby ready; a failed one does not.
func TestObservedLock(t *testing.T) {
	leases := schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"read", nil, true},
		{"not found", apierrors.NewNotFound(leases, "roleout"), true},
		{"forbidden", apierrors.NewForbidden(leases, "roleout", errors.New("no RBAC")), false},
		{"unreachable", errors.New("dial tcp 127.0.0.1:6443: connection refused"), false},
	} {
		e := &Election{}
		e.start()
		l := &observedLock{Interface: fakeLock{err: tc.err}, reached: e.reached}
		_, _, _ = l.Get(context.Background())
		if _, ok, _ := e.Readiness(false); ok != tc.want {
			t.Errorf("%s: standby ready = %v, want %v", tc.name, ok, tc.want)
		}
	}
}
