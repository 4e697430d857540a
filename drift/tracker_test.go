package drift

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// metaEvent is a watch event of Deployment ns/web at rv whose roleout
// entry (manager roleout/shop, at time own) owns roleout, plus others.
func metaEvent(ref object.Ref, rv string, own time.Time, roleout string, others ...metav1.ManagedFieldsEntry) apply.WatchEvent {
	t := metav1.NewTime(own)
	entries := append([]metav1.ManagedFieldsEntry{{Manager: "roleout/shop", Operation: metav1.ManagedFieldsOperationApply, Time: &t,
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(roleout)}}}, others...)
	return apply.WatchEvent{Object: ref, Meta: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Name: ref.Name, Namespace: ref.Namespace, ResourceVersion: rv, ManagedFields: entries}}}
}

func TestDriftTracking(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	// The heal backoff triggers from a timer goroutine (time.AfterFunc),
	// which may fire after this test: count atomically.
	var triggers atomic.Int32
	d := New(logrus.New(), func() time.Time { return now }, func() { triggers.Add(1) }, testBackoff{})
	ref := object.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"}
	aw := &appWatch{manager: "roleout/shop", objs: map[object.Ref]*tracked{ref: {role: "web"}}}
	d.apps["shop"] = aw
	applied := now.Add(-time.Hour)
	full := `{"f:spec":{"f:replicas":{},"f:template":{}}}`

	d.event("shop", aw, metaEvent(ref, "10", applied, full))
	if _, all := d.Due("shop"); len(all) != 0 || triggers.Load() != 0 {
		t.Fatalf("the first listing is the baseline, not drift: %v (%d triggers)", all, triggers.Load())
	}
	// A status update by a controller is no drift.
	d.event("shop", aw, metaEvent(ref, "11", applied, full, metav1.ManagedFieldsEntry{Manager: "kube-controller-manager",
		Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{}}`)}}))
	if _, all := d.Due("shop"); len(all) != 0 {
		t.Fatalf("a status update is not drift: %v", all)
	}
	// kubectl scale takes spec.replicas.
	scaled := metaEvent(ref, "12", applied, `{"f:spec":{"f:template":{}}}`, metav1.ManagedFieldsEntry{Manager: "kubectl",
		Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "scale", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:replicas":{}}}`)}})
	d.event("shop", aw, scaled)
	heal, all := d.Due("shop")
	if len(heal) != 1 || triggers.Load() != 1 || heal[0].Fields[0] != "spec.replicas" || heal[0].Managers[0] != "kubectl" || heal[0].Role != "web" {
		t.Fatalf("after kubectl scale: heal %+v (%d triggers), want spec.replicas by kubectl", heal, triggers.Load())
	}
	if !d.Unrecorded("shop") || len(all) != 1 {
		t.Fatal("new drift must be unrecorded")
	}
	// roleout heals it: its write is rv 14; an older event is ignored,
	// the write's event is the new baseline.
	d.Applied("shop", []apply.Result{{Object: ref, ResourceVersion: "14"}})
	d.event("shop", aw, scaled)
	if _, all := d.Due("shop"); len(all) != 1 {
		t.Fatalf("an event older than roleout's write must change nothing: %v", all)
	}
	d.event("shop", aw, metaEvent(ref, "14", applied, full))
	if _, all := d.Due("shop"); len(all) != 0 {
		t.Fatalf("roleout's own write clears the drift: %v", all)
	}
	d.Reported("shop", heal)

	// It comes back at once, and is healed again: the backoff starts.
	for i, want := range []time.Duration{10 * time.Second, 20 * time.Second} {
		if next := aw.objs[ref].nextHeal; next.After(now) {
			now = next
		}
		d.event("shop", aw, metaEvent(ref, "20", applied, `{"f:spec":{"f:template":{}}}`))
		heal, _ := d.Due("shop")
		if len(heal) != 1 {
			t.Fatalf("heal %d: nothing due", i)
		}
		now = now.Add(time.Second)
		d.Reported("shop", heal)
		d.Applied("shop", []apply.Result{{Object: ref, ResourceVersion: "30"}})
		d.event("shop", aw, metaEvent(ref, "30", applied, full))
		if got := aw.objs[ref].nextHeal.Sub(now); got != want {
			t.Errorf("after heal %d the next waits %s, want %s", i+2, got, want)
		}
	}
	d.event("shop", aw, metaEvent(ref, "40", applied, `{"f:spec":{"f:template":{}}}`))
	if heal, all := d.Due("shop"); len(heal) != 0 || len(all) != 1 {
		t.Errorf("inside the backoff drift is shown, not healed: heal %v, all %v", heal, all)
	}

	// A delete is drift.
	d.event("shop", aw, apply.WatchEvent{Object: ref})
	if _, all := d.Due("shop"); len(all) != 1 || !all[0].Deleted {
		t.Errorf("after a delete: %+v, want a deleted drift", all)
	}

	// An object roleout prunes is released first: its delete is no drift.
	d.event("shop", aw, metaEvent(ref, "50", applied.Add(time.Hour), full))
	d.Release("shop", []object.Ref{ref})
	d.event("shop", aw, apply.WatchEvent{Object: ref})
	if _, all := d.Due("shop"); len(all) != 0 {
		t.Errorf("a pruned object's delete was taken for drift: %+v", all)
	}
}

// testBackoff waits 10s, doubling, at most HealQuiet, as the agent's
// default does.
type testBackoff struct{}

func (testBackoff) After(n int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < n && d < HealQuiet; i++ {
		d *= 2
	}
	return min(d, HealQuiet)
}

// watchingApplier records the watches the tracker asks the app's cluster
// for and hands their event handlers back to the test.
type watchingApplier struct {
	refs     []object.Ref
	selector string
	handle   func(apply.WatchEvent)
	stopped  bool
}

func (w *watchingApplier) Watch(_ context.Context, refs []object.Ref, selector string, handle func(apply.WatchEvent)) (func(), error) {
	w.refs, w.selector, w.handle = refs, selector, handle
	return func() { w.stopped = true }, nil
}

// TestDriftWatchGoesThroughTheCluster: once started (roleout run), the
// tracker watches an app's applied objects, prerequisites aside,
// through the Cluster contract, by the app's label; events it streams
// become drift, and the end of the run stops the watch.
func TestDriftWatchGoesThroughTheCluster(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	d := New(logrus.New(), func() time.Time { return now }, func() {}, testBackoff{})
	ctx, cancel := context.WithCancel(context.Background())
	w := &watchingApplier{}
	web := object.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"}
	inv := []model.InventoryEntry{
		{Ref: object.Ref{APIVersion: "v1", Kind: "Namespace", Name: "shop"}, Prerequisite: true},
		{Ref: web, Role: "web", UpgradeOrder: 1},
	}
	d.Watch("shop", "roleout/shop", w, inv, nil)
	if w.handle != nil {
		t.Fatal("the tracker watched before it was started (RunOnce and commands watch nothing)")
	}
	d.Start(ctx)
	d.Watch("shop", "roleout/shop", w, inv, nil)
	if w.handle == nil || len(w.refs) != 1 || w.refs[0] != web || w.selector != object.AppLabel+"=shop" {
		t.Fatalf("watched %v with selector %q, want only %v by the app's label", w.refs, w.selector, web)
	}
	w.handle(apply.WatchEvent{Object: web})
	if _, all := d.Due("shop"); len(all) != 1 || all[0].Object != web.String() {
		t.Errorf("a deletion streamed by the cluster's watch is not drift: %+v", all)
	}
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for d.Active() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if d.Active() || !w.stopped {
		t.Errorf("the end of the run left the watch running (active %v, stopped %v)", d.Active(), w.stopped)
	}
}
