package sharding

import (
	"context"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	coordv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/roleout/roleout/internal/fence"
)

// TestClaimEndsWithTheLease drives a replica's renewals by hand (a fake
// Lease client: the timing is the point, not the API server): a reconcile
// begun in a session carries a claim that holds while the member Lease is
// renewed in time, ends a lease duration (less a retry period) after the
// last renewal however the process was held up, and is not revived by a
// renewal that comes after the renew deadline, which ends the session
// instead: the process was paused, and others may hold its apps.
func TestClaimEndsWithTheLease(t *testing.T) {
	ctx := context.Background()
	o := Options{Leases: fake.NewClientset().CoordinationV1().Leases("roleout"), Identity: "a",
		LeaseDuration: 6 * time.Second, RenewDeadline: 4 * time.Second, RetryPeriod: time.Second, Log: logrus.New()}
	r, err := NewReplica(o, []string{"web"})
	if err != nil {
		t.Fatal(err)
	}
	r.renew(ctx, time.Now())
	r.mu.Lock()
	r.held["web"] = &coordv1.Lease{}
	r.mu.Unlock()
	actx, done, ok := r.Begin(ctx, "web")
	if !ok {
		t.Fatal("Begin refused an app the session holds")
	}
	defer done()
	if err := fence.Check(actx); err != nil {
		t.Fatalf("a claim renewed just now: %v", err)
	}
	if err := fence.Check(Outlive(actx)); err != nil {
		t.Fatalf("the progress record's context of a live claim: %v", err)
	}

	// The last renewal was sent 10 s ago (the process was stopped since):
	// the claim ended 5 s ago, before any renewal or timer ran.
	r.mu.Lock()
	past := time.Now().Add(-10 * time.Second)
	r.lastRenew = past
	r.claim.last = past
	r.mu.Unlock()
	err = fence.Check(actx)
	if !fence.IsExpired(err) {
		t.Fatalf("a claim whose lease ran out: %v, want an ExpiredError", err)
	}
	if err := fence.Check(Outlive(actx)); !fence.IsExpired(err) {
		t.Errorf("the progress record's context after the lease ran out: %v, want an ExpiredError", err)
	}
	t.Log(err)

	// The renewal that comes on resuming succeeds on the API server, but
	// too late: it ends the session instead of extending its claims.
	r.renew(ctx, time.Now())
	r.mu.Lock()
	session := r.session
	r.mu.Unlock()
	if session != nil {
		t.Fatal("a renewal after the renew deadline kept the session")
	}
	if err := fence.Check(actx); !fence.IsExpired(err) {
		t.Errorf("the old claim after a late renewal: %v, want still expired", err)
	}
	if _, _, ok := r.Begin(ctx, "web"); ok {
		t.Error("Begin started a reconcile of an app the ended session held")
	}
	// The next renewal starts a new session; the old claim stays ended.
	r.renew(ctx, time.Now())
	r.mu.Lock()
	session = r.session
	r.mu.Unlock()
	if session == nil {
		t.Fatal("no new session after the late renewal")
	}
	if err := fence.Check(actx); !fence.IsExpired(err) {
		t.Errorf("the old claim in a new session: %v, want still expired", err)
	}
}
