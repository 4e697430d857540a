package sharding

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestMembersHearNewRevisions: a revision one replica announces reaches
// the other through its member Lease, once, within a few retry periods;
// a replica never hears its own, nor one it fetched itself.
func TestMembersHearNewRevisions(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 4)
	a, b := w.start("a"), w.start("b")
	w.settled(a, b)
	a.Announce("main@sha1:0")
	b.Announce("main@sha1:0")
	a.Announce("main@sha1:1")
	heard := func(id string) []string {
		w.mu.Lock()
		defer w.mu.Unlock()
		return slices.Clone(w.heard[id])
	}
	for deadline := time.Now().Add(10 * time.Second); len(heard("b")) == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	lease, err := w.cs.CoordinationV1().Leases(w.ns).Get(context.Background(), MemberLeaseName(DefaultGroup, "a"), metav1.GetOptions{})
	if err != nil || lease.Annotations[AnnotationSourceHead] != "main@sha1:1" {
		t.Fatalf("a's member Lease names %q (%v), want its revision", lease.Annotations[AnnotationSourceHead], err)
	}
	b.Announce("main@sha1:1")   // b polled: it fetched what it heard of
	time.Sleep(2 * time.Second) // several retry periods of both
	if got := heard("b"); !slices.Equal(got, []string{"main@sha1:1"}) {
		t.Errorf("b heard %v, want a's new revision once", got)
	}
	if got := heard("a"); len(got) != 0 {
		t.Errorf("a heard %v: its own revisions, or one it fetched itself", got)
	}
}
