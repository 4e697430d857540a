package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// roleDeployment returns a Deployment in role with upgradeOrder order.
func roleDeployment(name, role string, order int, image string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": "app", "annotations": map[string]any{
			object.RoleAnnotation: role, object.UpgradeOrderAnnotation: fmt.Sprint(order),
		}},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": name, "image": image}}},
			}},
	}}
}

func threeRoles(decodeImage string) []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "app"}}},
		roleDeployment("prefill", "prefill", 1, "prefill:1"),
		roleDeployment("decode", "decode", 2, decodeImage),
		roleDeployment("router", "router", 3, "router:1"),
	}
}

type harness struct {
	agent    *Agent
	fetcher  *fakeFetcher
	renderer *fakeRenderer
	planner  *fakePlanner
	applier  *fakeApplier
	status   *fakeStatus
}

func newHarness(objs []*unstructured.Unstructured, mutate func(*config.App)) *harness {
	limit := 10
	app := config.App{Name: "llm", Path: "apps/llm", UnorderedRoles: "First", Timeout: metav1.Duration{Duration: time.Minute}, RevisionHistoryLimit: &limit}
	if mutate != nil {
		mutate(&app)
	}
	h := &harness{
		fetcher:  &fakeFetcher{snap: sources.Snapshot{Revision: sources.SourceRevision{Ref: "main", Commit: strings.Repeat("a", 40)}}},
		renderer: &fakeRenderer{objs: objs},
		planner:  &fakePlanner{},
		applier:  &fakeApplier{},
		status:   &fakeStatus{},
	}
	off := false
	cfg := &config.Config{Source: config.Source{URL: "http://git.example/config.git", Branch: "main"}, Apps: []config.App{app}, Concurrency: 4,
		Status: config.StatusBranch{ClusterRevisions: &config.ClusterRevisions{Enabled: &off}}}
	h.agent = NewWithDeps(cfg, Deps{Fetcher: h.fetcher, Renderer: h.renderer, Planner: h.planner, Cluster: h.applier, Status: h.status}, quietLogger())
	return h
}

func (h *harness) newCommit(c byte, objs []*unstructured.Unstructured) {
	h.fetcher.snap.Revision.Commit = strings.Repeat(string(c), 40)
	h.renderer.objs = objs
}

func (h *harness) appStatus(t *testing.T) *status.App {
	t.Helper()
	st, err := status.ParseApp(h.status.files["llm/status.yaml"], "llm/status.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func summary(st *status.App) string {
	var parts []string
	for _, r := range st.Roles {
		parts = append(parts, fmt.Sprintf("%s:%s:%d", r.Name, r.Result, r.RevisionNumber))
	}
	return st.Phase + " " + strings.Join(parts, " ")
}

func TestReconcileAppliesWavesInOrder(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"app", "prefill", "decode", "router"}, h.applier.applied); diff != "" {
		t.Errorf("apply order (-want +got):\n%s", diff)
	}
	if h.applier.resets != 1 {
		t.Errorf("mapper resets after the prerequisite step = %d, want 1", h.applier.resets)
	}
	if l := h.applier.labels["decode"]; l[object.AppLabel] != "llm" || l[object.RoleLabel] != "decode" {
		t.Errorf("decode labels = %v", l)
	}
	if got := summary(h.appStatus(t)); got != "Succeeded prefill:Applied:1 decode:Applied:1 router:Applied:1" {
		t.Errorf("status = %s", got)
	}

	h.newCommit('b', threeRoles("decode:2"))
	h.applier.applied = nil
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"decode"}, h.applier.applied); diff != "" {
		t.Errorf("second rollout applied (-want +got):\n%s", diff)
	}
	st := h.appStatus(t)
	if got := summary(st); got != "Succeeded prefill:Unchanged:1 decode:Applied:2 router:Unchanged:1" {
		t.Errorf("status = %s", got)
	}
	if st.Roles[1].RevisionName != "llm-decode-"+st.Roles[1].Hash || st.Roles[1].AppliedSourceRevision != "main@sha1:"+strings.Repeat("b", 40) {
		t.Errorf("decode status = %+v", st.Roles[1])
	}
	want := []string{
		"roleout: llm roles prefill → rev 1, decode → rev 1, router → rev 1 (main@sha1:aaaaaaa)",
		"roleout: llm role decode → rev 2 (main@sha1:bbbbbbb)",
	}
	if diff := cmp.Diff(want, finalCommits(h.status.commits)); diff != "" {
		t.Errorf("status commits (-want +got):\n%s", diff)
	}
}

func TestReconcileUnhealthyWaveStopsLaterWaves(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	h.applier.failHealth = "decode"
	err := h.agent.RunOnce(context.Background())
	if err == nil || !strings.Contains(err.Error(), "app llm: wave 2 (upgradeOrder 2): Deployment/app/decode not ready") {
		t.Fatalf("error = %v", err)
	}
	if diff := cmp.Diff([]string{"app", "prefill", "decode"}, h.applier.applied); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	st := h.appStatus(t)
	if got := summary(st); got != "Failed prefill:Applied:1 decode:Failed:0 router:Pending:0" {
		t.Errorf("status = %s", got)
	}
	if !strings.Contains(st.Roles[1].Message, "Available: 0/1") {
		t.Errorf("decode message %q lacks the condition", st.Roles[1].Message)
	}
	if c := finalCommits(h.status.commits)[0]; !strings.Contains(c, "role prefill → rev 1; failed: wave 2") {
		t.Errorf("commit message %q", c)
	}

	// The same commit again, now healthy: only the roles not yet applied
	// are written.
	h.applier.failHealth, h.applier.applied = "", nil
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"decode", "router"}, h.applier.applied); diff != "" {
		t.Errorf("retry applied (-want +got):\n%s", diff)
	}
	if got := summary(h.appStatus(t)); got != "Succeeded prefill:Unchanged:1 decode:Applied:1 router:Applied:1" {
		t.Errorf("status = %s", got)
	}
}

func TestReconcileRenderErrorAppliesNothing(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.newCommit('b', nil)
	h.renderer.err = errors.New("kustomize build apps/llm: missing.yaml: no such file")
	h.applier.applied = nil
	err := h.agent.RunOnce(context.Background())
	if err == nil || !strings.Contains(err.Error(), "app llm: render apps/llm at main@sha1:bbbbbbb: kustomize build") {
		t.Fatalf("error = %v", err)
	}
	if len(h.applier.applied) != 0 {
		t.Errorf("applied %v after a render error", h.applier.applied)
	}
	st := h.appStatus(t)
	if got := summary(st); got != "Failed prefill:Applied:1 decode:Applied:1 router:Applied:1" {
		t.Errorf("status = %s (the applied roles must stay recorded)", got)
	}
	if !strings.Contains(st.Message, "missing.yaml") || st.SourceRevision != "main@sha1:"+strings.Repeat("b", 40) {
		t.Errorf("status message %q revision %s", st.Message, st.SourceRevision)
	}
}

func TestReconcileSkipsWhatIsDone(t *testing.T) {
	cases := []struct {
		name       string
		objs       []*unstructured.Unstructured
		mutate     func(*config.App)
		wantPhase  string
		wantRender int
	}{
		{"empty render is an error", nil, nil, status.PhaseFailed, 1},
		{"paused plans but applies nothing", threeRoles("decode:1"), func(a *config.App) { a.Paused = true }, status.PhasePaused, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(tc.objs, tc.mutate)
			_ = h.agent.RunOnce(context.Background())
			if len(h.applier.applied) != 0 {
				t.Errorf("applied %v", h.applier.applied)
			}
			if st := h.appStatus(t); st.Phase != tc.wantPhase {
				t.Errorf("phase %s, want %s (%s)", st.Phase, tc.wantPhase, st.Message)
			}
			if h.renderer.calls != tc.wantRender {
				t.Errorf("renders = %d, want %d", h.renderer.calls, tc.wantRender)
			}
		})
	}
	t.Run("a reconciled revision is not rendered again", func(t *testing.T) {
		h := newHarness(threeRoles("decode:1"), nil)
		for range 3 {
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if h.renderer.calls != 1 || len(finalCommits(h.status.commits)) != 1 {
			t.Errorf("renders = %d, status commits = %d; want 1 and 1", h.renderer.calls, len(h.status.commits))
		}
	})
	t.Run("a status that was not recorded is recorded at the next poll", func(t *testing.T) {
		h := newHarness(threeRoles("decode:1"), nil)
		h.status.failFinal = 1
		if err := h.agent.RunOnce(context.Background()); err == nil {
			t.Fatal("a failed status commit must fail the reconcile")
		}
		if st := h.appStatus(t); st.Phase != status.PhaseProgressing {
			t.Fatalf("after the failed final record the status says %s, want the last checkpoint's Progressing", st.Phase)
		}
		if err := h.agent.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		if st := h.appStatus(t); st.Phase != status.PhaseSucceeded || st.SourceRevision != h.fetcher.snap.Revision.String() {
			t.Errorf("after the next poll the status says %s at %s, want Succeeded at the commit", st.Phase, st.SourceRevision)
		}
	})
}

func TestReconcileFetchError(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	h.fetcher.err = errors.New("fetch http://git.example/config.git: connection refused")
	err := h.agent.RunOnce(context.Background())
	if err == nil || !strings.Contains(err.Error(), "poll source: fetch") {
		t.Fatalf("error = %v", err)
	}
	if h.renderer.calls != 0 || len(h.applier.applied) != 0 || len(h.status.commits) != 0 {
		t.Error("a failed fetch must render, apply and record nothing")
	}
}

func TestNextWait(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 7, 30, 0, time.UTC)
	minute := config.Every(time.Minute)
	cron, err := config.Schedule{Cron: "*/10 * * * *"}.Cadence()
	if err != nil {
		t.Fatal(err)
	}
	none := func(int64) int64 { return 0 }
	most := func(n int64) int64 { return n - 1 }
	cases := []struct {
		name     string
		sched    config.Cadence
		failures int
		rnd      func(int64) int64
		want     time.Duration
	}{
		{"interval without jitter drawn", minute, 0, none, time.Minute},
		{"interval with the most jitter: 10%", minute, 0, most, time.Minute + 6*time.Second},
		{"cron gets no jitter", cron, 0, most, 2*time.Minute + 30*time.Second},
		{"first failure backs off to 10s", minute, 1, most, 10 * time.Second},
		{"third failure backs off to 40s", minute, 3, none, 40 * time.Second},
		{"backoff never waits past the schedule", minute, 10, none, time.Minute},
		{"long interval: backoff caps at 5m", config.Every(time.Hour), 20, none, 5 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := nextWait(tc.sched, now, tc.failures, DefaultBackoffs().Poll, tc.rnd); got != tc.want {
				t.Errorf("nextWait = %s, want %s", got, tc.want)
			}
		})
	}
}

// finalCommits leaves out the status commits made between waves.
func finalCommits(commits []string) []string {
	var out []string
	for _, c := range commits {
		if !strings.Contains(c, " [wave ") {
			out = append(out, c)
		}
	}
	return out
}
