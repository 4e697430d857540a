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
