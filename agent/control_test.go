package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/status"
)

// fakeControl is a control ConfigMap in memory: set changes it and
// delivers it to a running watch.
type fakeControl struct {
	mu      sync.Mutex
	cm      *corev1.ConfigMap
	err     error
	gets    int
	changed func(*corev1.ConfigMap)
}

func (f *fakeControl) Get(context.Context) (*corev1.ConfigMap, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	return f.cm.DeepCopy(), f.err
}

// Watch lists as an informer does: an absent ConfigMap is no event.
func (f *fakeControl) Watch(_ context.Context, changed func(*corev1.ConfigMap)) func() bool {
	f.mu.Lock()
	f.changed = changed
	cm := f.cm.DeepCopy()
	f.mu.Unlock()
	if cm != nil {
		changed(cm)
	}
	return func() bool { return true }
}

func (f *fakeControl) getCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gets
}

// set replaces the ConfigMap's data (nil deletes it).
func (f *fakeControl) set(data map[string]string) {
	f.mu.Lock()
	f.cm = nil
	if data != nil {
		f.cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: control.ConfigMapName, Namespace: "roleout-system"}, Data: data}
	}
	cm, changed := f.cm.DeepCopy(), f.changed
	f.mu.Unlock()
	if changed != nil {
		changed(cm)
	}
}

var _ control.Source = (*fakeControl)(nil)

// suspendedData is the control data of app llm suspended by alice.
func suspendedData() map[string]string {
	return map[string]string{"llm.suspended": "true", "llm.suspendedBy": "alice", "llm.suspendedAt": "2026-11-27T10:00:00Z"}
}

// controlHarness is newHarness with the control ConfigMap ctl.
func controlHarness(ctl *fakeControl) *harness {
	h := newHarness(threeRoles("decode:1"), nil)
	h.agent.control = control.NewCopy(ctl, h.agent.log, h.agent.servesApp, h.agent.controlChanged)
	return h
}

// TestSuspendedAppAppliesNothing: roleout run --once reads the control
// ConfigMap once per poll; a suspended app is planned, nothing is
// applied, and its status says Suspended, by whom and since when; once
// resumed, it rolls out.
func TestSuspendedAppAppliesNothing(t *testing.T) {
	ctl := &fakeControl{}
	ctl.set(suspendedData())
	h := controlHarness(ctl)
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := h.appStatus(t)
	if st.Phase != status.PhaseSuspended || !strings.Contains(st.Message, "suspended by alice at 2026-11-27T10:00:00Z") {
		t.Errorf("suspended: phase %s, message %q", st.Phase, st.Message)
	}
	if len(h.applier.applied) != 0 || ctl.getCount() != 1 {
		t.Fatalf("suspended: applied %v with %d reads of the ConfigMap; want nothing with 1", h.applier.applied, ctl.getCount())
	}
	if got := finalCommits(h.status.commits); len(got) != 1 || got[0] != "roleout: llm suspended (main@sha1:aaaaaaa)" {
		t.Errorf("status commits = %q", got)
	}
	ctl.set(map[string]string{"other.suspended": "true"})
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := summary(h.appStatus(t)); got != "Succeeded prefill:Applied:1 decode:Applied:1 router:Applied:1" {
		t.Errorf("resumed: status %s", got)
	}
}

// TestControlReadErrorReconcilesNothing: when the agent cannot tell
// whether an app is suspended (RBAC), it applies nothing.
func TestControlReadErrorReconcilesNothing(t *testing.T) {
	h := controlHarness(&fakeControl{err: errors.New("forbidden")})
	err := h.agent.RunOnce(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cannot tell which apps are suspended") {
		t.Errorf("RunOnce = %v, want an error saying nothing was reconciled", err)
	}
	if len(h.applier.applied) != 0 || h.fetcher.fetchCount() != 0 {
		t.Errorf("applied %v after %d fetches; want nothing", h.applier.applied, h.fetcher.fetchCount())
	}
}

// TestControlFromGitIgnored: a control ConfigMap an app applied from git
// (it carries roleout.dev/app) suspends nothing.
func TestControlFromGitIgnored(t *testing.T) {
	ctl := &fakeControl{}
	ctl.set(suspendedData())
	ctl.cm.Labels = map[string]string{object.AppLabel: "intruder"}
	h := controlHarness(ctl)
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := h.appStatus(t); st.Phase != status.PhaseSucceeded {
		t.Errorf("phase %s (%s), want %s", st.Phase, st.Message, status.PhaseSucceeded)
	}
}

// TestSuspendStopsRolloutBetweenWaves: suspended during wave 1, the
// rollout stops after it; later waves wait, the status is Suspended, and
// resume finishes the rollout from wave 2.
func TestSuspendStopsRolloutBetweenWaves(t *testing.T) {
	ctl := &fakeControl{}
	h := controlHarness(ctl)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.agent.control.Start(ctx)
	h.applier.afterApply = func(name string) {
		if name == "prefill" {
			go ctl.set(suspendedData())
			for ok := false; !ok; time.Sleep(time.Millisecond) {
				ok, _ = h.agent.suspended("llm")
			}
		}
	}
	if err := h.agent.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"app", "prefill"}, h.applier.applied); diff != "" {
		t.Errorf("applied while suspended (-want +got):\n%s", diff)
	}
	st := h.appStatus(t)
	if got := summary(st); st.Phase != status.PhaseSuspended || got != "Suspended prefill:Unchanged:1 decode:Pending:0 router:Pending:0" {
		t.Errorf("after the stop: %s (%s)", got, st.Message)
	}
	if !strings.Contains(strings.Join(h.status.commits, "\n"), "[wave 1/3]") {
		t.Errorf("the wave done before the stop was not recorded: %q", h.status.commits)
	}
	h.applier.afterApply, h.applier.applied = nil, nil
	ctl.set(nil)
	if err := h.agent.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"decode", "router"}, h.applier.applied); diff != "" {
		t.Errorf("resumed: applied (-want +got):\n%s", diff)
	}
	if got := summary(h.appStatus(t)); got != "Succeeded prefill:Unchanged:1 decode:Applied:1 router:Applied:1" {
		t.Errorf("resumed: %s", got)
	}
}

// TestControlWatchTriggers: the watch's first listing triggers nothing
// and makes RunOnce read nothing; a suspension, a resume or a reconcile
// request for a served app triggers a poll and plans the app again
// (status Suspended at a revision already done); other apps' keys do
// not.
func TestControlWatchTriggers(t *testing.T) {
	ctl := &fakeControl{}
	ctl.set(map[string]string{"llm.reconcileRequestedAt": "2026-11-27T09:00:00Z"})
	h := controlHarness(ctl)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.agent.control.Start(ctx)
	triggered := func() bool {
		select {
		case <-h.agent.trigger:
			return true
		default:
			return false
		}
	}
	if triggered() {
		t.Error("the first listing triggered a poll")
	}
	if err := h.agent.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if ctl.getCount() != 0 {
		t.Errorf("RunOnce read the ConfigMap %d times while the watch is live", ctl.getCount())
	}
	ctl.set(map[string]string{"llm.reconcileRequestedAt": "2026-11-27T09:00:00Z", "other.suspended": "true"})
	if triggered() {
		t.Error("another app's suspension triggered a poll")
	}
	ctl.set(map[string]string{"llm.reconcileRequestedAt": "2026-11-27T10:00:00Z"})
	if !triggered() {
		t.Error("a reconcile request did not trigger a poll")
	}
	ctl.set(suspendedData())
	if !triggered() {
		t.Error("a suspension did not trigger a poll")
	}
	h.applier.applied = nil
	if err := h.agent.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if st := h.appStatus(t); st.Phase != status.PhaseSuspended || len(h.applier.applied) != 0 {
		t.Errorf("suspended at a revision done: phase %s, applied %v; want %s, nothing", st.Phase, h.applier.applied, status.PhaseSuspended)
	}
	ctl.set(nil)
	if !triggered() {
		t.Error("a resume (ConfigMap deleted) did not trigger a poll")
	}
	if err := h.agent.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if st := h.appStatus(t); st.Phase != status.PhaseSucceeded || len(h.applier.applied) != 0 {
		t.Errorf("resumed: phase %s, applied %v; want %s, nothing to apply", st.Phase, h.applier.applied, status.PhaseSucceeded)
	}
}

// TestControlCreatedAfterEmptyListing: a ConfigMap created after the
// watch listed none is a change.
func TestControlCreatedAfterEmptyListing(t *testing.T) {
	ctl := &fakeControl{}
	h := controlHarness(ctl)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.agent.control.Start(ctx)
	ctl.set(map[string]string{"llm.reconcileRequestedAt": "2026-11-27T10:00:00Z"})
	select {
	case <-h.agent.trigger:
	default:
		t.Error("the first reconcile request (the ConfigMap created) did not trigger a poll")
	}
}

// handing is a cluster's watch that hands its event handler to the test.
type handing struct{ handle func(apply.WatchEvent) }

func (w *handing) Watch(_ context.Context, _ []object.Ref, _ string, handle func(apply.WatchEvent)) (func(), error) {
	w.handle = handle
	return func() {}, nil
}

// TestSuspendedDriftNotHealed: drift of a suspended app is recorded, not
// healed.
func TestSuspendedDriftNotHealed(t *testing.T) {
	ctl := &fakeControl{}
	h := controlHarness(ctl)
	ref := object.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "app", Name: "decode"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.agent.drift.Start(ctx)
	w := &handing{}
	h.agent.drift.Watch("llm", "roleout/llm", w, []model.InventoryEntry{{Ref: ref, Role: "decode", UpgradeOrder: 2}}, nil)
	w.handle(apply.WatchEvent{Object: ref}) // deleted: drift
	app := h.agent.cfg.Apps[0]
	if w := h.agent.driftFor(app); len(w.heal) != 1 {
		t.Fatalf("not suspended: heal %v, want the drift", w.heal)
	}
	ctl.set(suspendedData())
	if err := h.agent.control.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w := h.agent.driftFor(app); len(w.heal) != 0 || len(w.all) != 1 || !w.pending {
		t.Errorf("suspended: %+v, want the drift recorded, not healed", w)
	}
}
