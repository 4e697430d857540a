package control

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestControlWrites: suspend records who and when (a second suspend
// keeps them), reconcile a request time, resume lifts the suspension and
// keeps the other apps' keys.
func TestControlWrites(t *testing.T) {
	ctx := context.Background()
	kube := fake.NewClientset()
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	c, err := Suspend(ctx, kube, "roleout-system", "llm", "alice", at)
	if err != nil {
		t.Fatal(err)
	}
	want := App{App: "llm", Suspended: true, SuspendedBy: "alice", SuspendedAt: "2026-11-27T10:00:00Z"}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("suspend (-want +got):\n%s", diff)
	}
	if c, _ = Suspend(ctx, kube, "roleout-system", "llm", "bob", at.Add(time.Hour)); c.SuspendedBy != "alice" {
		t.Errorf("a second suspend: %+v, want alice's kept", c)
	}
	if _, err := Suspend(ctx, kube, "roleout-system", "web", "", at); err != nil {
		t.Fatal(err)
	}
	if c, _ = RequestReconcile(ctx, kube, "roleout-system", "llm", at); c.RequestedAt != "2026-11-27T10:00:00Z" || !c.Suspended {
		t.Errorf("reconcile: %+v", c)
	}
	if c, err = Resume(ctx, kube, "roleout-system", "llm"); err != nil || c.Suspended || c.SuspendedBy != "" {
		t.Errorf("resume: %+v, %v", c, err)
	}
	cm, err := kube.CoreV1().ConfigMaps("roleout-system").Get(ctx, ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantData := map[string]string{"llm.reconcileRequestedAt": "2026-11-27T10:00:00Z", "web.suspended": "true", "web.suspendedAt": "2026-11-27T10:00:00Z"}
	if diff := cmp.Diff(wantData, cm.Data); diff != "" {
		t.Errorf("ConfigMap data (-want +got):\n%s", diff)
	}
	if c, err := Read(ctx, kube, "roleout-system", "web"); err != nil || !c.Suspended {
		t.Errorf("Read(web) = %+v, %v", c, err)
	}
}

// TestRollbackRequests: a rollback request is recorded with who and when,
// a second replaces it, resume ends a suspension first and the rollback
// only at the next resume, and a revision that is not a number reads as
// 0, which the agent refuses.
func TestRollbackRequests(t *testing.T) {
	ctx := context.Background()
	kube := fake.NewClientset()
	at := time.Date(2026, 12, 3, 10, 0, 0, 5, time.UTC)
	if _, err := RequestRollback(ctx, kube, "ns", "llm", "decode", 2, "alice", at); err != nil {
		t.Fatal(err)
	}
	c, err := RequestRollback(ctx, kube, "ns", "llm", "decode", 1, "", at.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := &Rollback{Role: "decode", Revision: 1, RequestedAt: "2026-12-03T10:00:01.000000005Z"}
	if diff := cmp.Diff(want, c.Rollback); diff != "" {
		t.Errorf("the second request (-want +got):\n%s", diff)
	}
	if _, err := Suspend(ctx, kube, "ns", "llm", "bob", at); err != nil {
		t.Fatal(err)
	}
	if c, err = Resume(ctx, kube, "ns", "llm"); err != nil || c.Lifted != "suspension" || c.Suspended || c.Rollback == nil {
		t.Errorf("the first resume: %+v, %v; want the suspension lifted and the rollback kept", c, err)
	}
	if c, err = Resume(ctx, kube, "ns", "llm"); err != nil || c.Lifted != "rollback" || c.Rollback != nil {
		t.Errorf("the second resume: %+v, %v; want the rollback ended", c, err)
	}
	if c, err = Resume(ctx, kube, "ns", "llm"); err != nil || c.Lifted != "" {
		t.Errorf("a resume with nothing held: %+v, %v", c, err)
	}
	got := Of(map[string]string{"llm.rollbackRole": "decode", "llm.rollbackTo": "two", "llm.rollbackRequestedAt": "x"}, "llm")
	if got.Rollback == nil || got.Rollback.Revision != 0 {
		t.Errorf("a revision that is not a number: %+v", got.Rollback)
	}
}
