package agent

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/predict"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// revisionFiles lists the revision files of role on the fake branch.
func (h *harness) revisionFiles(role string) []string {
	var out []string
	for name := range h.status.files {
		if strings.HasPrefix(name, "llm/revisions/"+role+"/") {
			out = append(out, strings.TrimPrefix(name, "llm/revisions/"+role+"/"))
		}
	}
	sort.Strings(out)
	return out
}

func TestReconcileRollbackAndHistory(t *testing.T) {
	limit := 2
	h := newHarness(threeRoles("decode:1"), func(a *config.App) { a.RevisionHistoryLimit = &limit })
	ctx := context.Background()
	run := func(c byte, image string) *status.App {
		t.Helper()
		h.newCommit(c, threeRoles(image))
		if err := h.agent.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		return h.appStatus(t)
	}
	first := run('a', "decode:1")
	rev1 := first.Roles[1].RevisionName
	run('b', "decode:2")
	if got := h.revisionFiles("decode"); len(got) != 2 {
		t.Fatalf("decode revisions after an update = %v, want 2", got)
	}
	// Back to the first template: a rollback, numbered max+1, under the
	// first revision's name.
	h.applier.applied = nil
	back := run('c', "decode:1")
	if d := back.Roles[1]; d.RevisionNumber != 3 || d.RevisionName != rev1 || d.Result != status.RoleApplied {
		t.Errorf("after rollback decode = %+v, want rev 3 named %s", d, rev1)
	}
	if diff := cmp.Diff([]string{"decode"}, h.applier.applied); diff != "" {
		t.Errorf("rollback applied (-want +got):\n%s", diff)
	}
	run('d', "decode:3")
	files := h.revisionFiles("decode")
	if len(files) != 2 || !contains(files, rev1+".yaml") {
		t.Errorf("decode revisions after truncation to 2 = %v, want rev 3 (%s) and rev 4", files, rev1)
	}
	inv := string(h.status.files["llm/inventory.yaml"])
	for _, want := range []string{"kind: Namespace", "name: prefill", "role: decode", "upgradeOrder: 3"} {
		if !strings.Contains(inv, want) {
			t.Errorf("inventory lacks %q:\n%s", want, inv)
		}
	}
}

func TestReconcileFailedRolloutKeepsRevisionNumber(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	ctx := context.Background()
	if err := h.agent.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	h.newCommit('b', threeRoles("decode:2"))
	h.applier.failHealth = "decode"
	if err := h.agent.RunOnce(ctx); err == nil {
		t.Fatal("want the wave to fail")
	}
	st := h.appStatus(t)
	if d := st.Roles[1]; d.RevisionNumber != 1 || d.Result != status.RoleFailed {
		t.Errorf("decode after the failure = %+v, want still at rev 1, Failed", d)
	}
	if got := h.revisionFiles("decode"); len(got) != 2 {
		t.Errorf("revision 2 must be recorded even though it failed: %v", got)
	}
	h.applier.failHealth = ""
	if err := h.agent.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if d := h.appStatus(t).Roles[1]; d.RevisionNumber != 2 || d.Result != status.RoleApplied {
		t.Errorf("decode after the retry = %+v, want rev 2 applied (number not reused or skipped)", d)
	}
}

func TestReconcileRefusesBrokenStatus(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	h.status.files = map[string][]byte{"llm/status.yaml": []byte("kind: AppStatus\nroles: {not: a list}\n")}
	err := h.agent.RunOnce(context.Background())
	if err == nil || !strings.Contains(err.Error(), "llm/status.yaml is not a valid status") || !strings.Contains(err.Error(), "fix or delete it") {
		t.Fatalf("error = %v", err)
	}
	if len(h.applier.applied) != 0 || len(h.status.commits) != 0 {
		t.Error("a broken status file must stop the app before anything is applied or recorded")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestReconcileRecordsPredictedAndObserved(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	h.applier.observed = map[string]object.Identity{"decode": {ReplicaSetName: "decode-other", PodTemplateHash: "other"}}
	logger, hook := logtest.NewNullLogger()
	h.agent.log = logger
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	var warned bool
	for _, e := range hook.AllEntries() {
		if e.Level == logrus.WarnLevel && e.Data["workload"] == "Deployment/app/decode" &&
			strings.Contains(e.Message, "predicted ReplicaSet decode-") && strings.Contains(e.Message, "the controller made ReplicaSet decode-other") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning naming the predicted and the observed ReplicaSet; log: %v", hook.AllEntries())
	}
	st := h.appStatus(t)
	decode := st.Roles[1].Workloads
	if len(decode) != 1 || decode[0].Predicted.ReplicaSetName == "" || !decode[0].RestartsPods {
		t.Fatalf("decode workloads = %+v", decode)
	}
	if decode[0].Observed == nil || decode[0].Observed.ReplicaSetName != "decode-other" || decode[0].Match {
		t.Errorf("a mismatch must be recorded with both values: %+v", decode[0])
	}
	if prefill := st.Roles[0].Workloads; len(prefill) != 1 || prefill[0].Observed != nil || prefill[0].Match {
		t.Errorf("an unreadable observation is recorded as missing: %+v", prefill)
	}
}

// TestReconcilePredictsWithLiveCollisionCounts: a workload whose live
// status has a collisionCount is predicted with it, as its controller
// will hash.
func TestReconcilePredictsWithLiveCollisionCounts(t *testing.T) {
	predicted := func(collisions map[string]int32) string {
		h := newHarness(threeRoles("decode:1"), nil)
		h.applier.collisions = collisions
		if err := h.agent.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		return h.appStatus(t).Roles[1].Workloads[0].Predicted.ReplicaSetName
	}
	without, with := predicted(nil), predicted(map[string]int32{"decode": 2})
	dep := roleDeployment("decode", "decode", 2, "decode:1")
	cc := int32(2)
	want, err := predict.Predict(dep, predict.Options{CollisionCount: &cc})
	if err != nil {
		t.Fatal(err)
	}
	if with == without || !strings.HasPrefix(with, "decode-") {
		t.Errorf("ReplicaSet predicted with collisionCount 2 = %s, without = %s: want different", with, without)
	}
	if with != want.ReplicaSetName {
		t.Errorf("ReplicaSet predicted with collisionCount 2 = %s, want %s", with, want.ReplicaSetName)
	}
}

func TestReconcilePrunesOnlyWhenAllWell(t *testing.T) {
	cases := []struct {
		name       string
		prune      bool
		failHealth string
		want       []string
	}{
		{"prune on: objects that left git go, in reverse order", true, "", []string{"router", "decode"}},
		{"prune off: nothing is deleted", false, "", nil},
		{"a failed wave prunes nothing", true, "prefill", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(threeRoles("decode:1"), func(a *config.App) { a.Prune = tc.prune })
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			objs := threeRoles("decode:1")[:2] // decode and router left git
			objs[1] = roleDeployment("prefill", "prefill", 1, "prefill:2")
			h.newCommit('b', objs)
			h.applier.failHealth = tc.failHealth
			h.applier.applied = nil
			_ = h.agent.RunOnce(context.Background())
			if diff := cmp.Diff(tc.want, h.applier.pruned); diff != "" {
				t.Errorf("pruned (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHistoryRecords(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	ctx := context.Background()
	records := func() []status.Rollout {
		t.Helper()
		r, err := status.ReadHistory(h.status.files, "llm")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if err := h.agent.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	first := records()
	if len(first) != 1 || first[0].Result != status.PhaseSucceeded || len(first[0].Waves) != 3 || first[0].Waves[1].Roles[0].Name != "decode" ||
		first[0].Waves[1].Roles[0].Action != "install" || first[0].Trigger != "poll" {
		t.Fatalf("first record = %+v", first)
	}
	// A broken commit polled three times: one record, one status commit.
	h.newCommit('b', nil)
	h.renderer.err = errors.New("kustomize build apps/llm: boom")
	commits := len(h.status.commits)
	for range 3 {
		_ = h.agent.RunOnce(ctx)
	}
	if got := records(); len(got) != 2 || got[1].Result != status.PhaseFailed || !strings.Contains(got[1].Message, "boom") {
		t.Errorf("records after a broken commit polled three times = %+v", got)
	}
	if n := len(h.status.commits) - commits; n != 1 {
		t.Errorf("status commits for a broken commit polled three times = %d, want 1", n)
	}
}

// TestNewerCommitMidRollout pushes a commit while wave 1 of a three-wave
// rollout runs: the wave finishes, the agent plans again from the newer
// commit, and roles already at the newer template are not applied again.
func TestNewerCommitMidRollout(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	newer := h.fetcher.snap
	newer.Revision.Commit = strings.Repeat("b", 40)
	h.fetcher.heads = []sources.Snapshot{newer}
	// The newer commit changes decode; prefill (wave 1) is the same.
	h.renderer.objs = threeRoles("decode:1")
	next := threeRoles("decode:2")
	h.applier.afterApply = func(name string) {
		if name == "prefill" {
			h.renderer.objs = next
		}
	}
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"app", "prefill", "decode", "router"}, h.applier.applied); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	st := h.appStatus(t)
	if st.SourceRevision != "main@sha1:"+strings.Repeat("b", 40) || st.Phase != status.PhaseSucceeded {
		t.Errorf("final status %s %s, want the newer commit, Succeeded", st.SourceRevision, st.Phase)
	}
	// decode's template of the first commit was planned (revision 1,
	// recorded, never applied); the newer one is revision 2.
	if d := st.Roles[1]; d.RevisionNumber != 2 || d.AppliedSourceRevision != st.SourceRevision {
		t.Errorf("decode = %+v: want revision 2 applied from the newer commit", d)
	}
	var superseded bool
	for _, c := range h.status.commits {
		superseded = superseded || strings.Contains(c, "[superseded]")
	}
	if !superseded {
		t.Errorf("no status commit says the rollout was superseded: %q", h.status.commits)
	}
}

// TestResumeAfterRestart kills nothing but starts a fresh agent on the
// status a checkpoint left: it continues at the next wave.
func TestResumeAfterRestart(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	h.applier.failHealth = "router" // stands in for a crash in wave 3
	_ = h.agent.RunOnce(context.Background())
	h.applier.failHealth, h.applier.applied = "", nil
	restarted := NewWithDeps(h.agent.cfg, h.agent.deps, quietLogger())
	if err := restarted.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"router"}, h.applier.applied); diff != "" {
		t.Errorf("the restarted agent applied (-want +got):\n%s", diff)
	}
}

// TestBrokenAppDoesNotBlockOthers reconciles two apps at once, one with a
// broken overlay: the other rolls out; the broken one records its error
// and applies nothing.
func TestBrokenAppDoesNotBlockOthers(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	good := h.agent.cfg.Apps[0]
	broken := good
	broken.Name, broken.Path = "broken", "apps/broken"
	h.agent.cfg.Apps = []config.App{broken, good}
	h.renderer.errFor = map[string]error{"broken": errors.New("kustomize build apps/broken: missing.yaml: no such file")}
	err := h.agent.RunOnce(context.Background())
	if err == nil || !strings.Contains(err.Error(), "app broken: render apps/broken") || strings.Contains(err.Error(), "app llm") {
		t.Fatalf("error = %v, want only app broken's", err)
	}
	if len(h.applier.applied) != 4 {
		t.Errorf("applied %v, want the good app's four objects", h.applier.applied)
	}
	st, err := status.ParseApp(h.status.files["broken/status.yaml"], "broken/status.yaml")
	if err != nil || st.Phase != status.PhaseFailed || !strings.Contains(st.Message, "missing.yaml") {
		t.Errorf("broken app's status: %+v %v", st, err)
	}
	if got := h.appStatus(t); got.Phase != status.PhaseSucceeded {
		t.Errorf("good app's phase %s", got.Phase)
	}
}

// TestUnchangedRoleCrossChecked: a role the status branch says is at the
// planned revision is applied again when the agent's record in the
// cluster (its ControllerRevisions) has no such revision, and left alone
// when it has.
func TestUnchangedRoleCrossChecked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		forget bool // the cluster loses the ControllerRevisions
		want   []string
	}{
		{name: "recorded in the cluster", want: []string{"decode"}},
		{name: "missing from the cluster", forget: true, want: []string{"prefill", "decode", "router"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(threeRoles("decode:1"), nil)
			h.agent.cfg.Status.ClusterRevisions = &config.ClusterRevisions{Namespace: "roleout-system"}
			ctx := context.Background()
			if err := h.agent.RunOnce(ctx); err != nil {
				t.Fatal(err)
			}
			if tc.forget {
				h.applier.labels = map[string]map[string]string{}
			}
			h.newCommit('b', threeRoles("decode:2"))
			h.applier.applied = nil
			if err := h.agent.RunOnce(ctx); err != nil {
				t.Fatal(err)
			}
			var roles []string
			for _, name := range h.applier.applied {
				if !strings.HasPrefix(name, "llm-") { // the ControllerRevisions themselves
					roles = append(roles, name)
				}
			}
			if diff := cmp.Diff(tc.want, roles); diff != "" {
				t.Errorf("applied (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetriesBackOff: the running loop retries a commit whose wave failed
// only after a backoff that doubles, says so in the status, and applies
// nothing meanwhile; once it succeeds the count is gone.
func TestRetriesBackOff(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	h.agent.deps.Clock = func() time.Time { return now }
	h.agent.backoffRetries = true // as Run sets it
	h.applier.failHealth = "decode"
	ctx := context.Background()
	poll := func(wantApplied bool, wantAttempts int, wantRetry time.Duration) {
		t.Helper()
		h.applier.applied = nil
		commits := len(h.status.commits)
		_ = h.agent.RunOnce(ctx)
		if applied := len(h.applier.applied) > 0; applied != wantApplied {
			t.Errorf("at %s: applied %v, want %v", now.Format(time.TimeOnly), h.applier.applied, wantApplied)
		}
		if !wantApplied && len(h.status.commits) != commits {
			t.Errorf("at %s: a waiting retry committed status", now.Format(time.TimeOnly))
		}
		st := h.appStatus(t)
		var retry time.Duration
		if st.RetryAfter != nil {
			retry = st.RetryAfter.Sub(now)
		}
		if wantApplied && (st.Attempts != wantAttempts || retry != wantRetry) {
			t.Errorf("at %s: attempts %d, retry in %s; want %d, %s", now.Format(time.TimeOnly), st.Attempts, retry, wantAttempts, wantRetry)
		}
	}
	poll(true, 1, time.Minute)
	for _, r := range h.appStatus(t).Roles {
		if r.Name == "decode" && (r.RevisionNumber != 0 || r.FailedRevisionNumber != 1 || r.FailedRevisionName == "") {
			t.Errorf("failed role decode: revision %d, failed revision %d %q; want none succeeded, 1 failed", r.RevisionNumber, r.FailedRevisionNumber, r.FailedRevisionName)
		}
	}
	now = now.Add(30 * time.Second)
	poll(false, 0, 0)
	now = now.Add(31 * time.Second)
	poll(true, 2, 2*time.Minute)
	now = now.Add(time.Minute)
	poll(false, 0, 0)
	now = now.Add(61 * time.Second)
	h.applier.failHealth = ""
	poll(true, 0, 0)
	if st := h.appStatus(t); st.Phase != status.PhaseSucceeded {
		t.Errorf("after the fix: %s %s", st.Phase, st.Message)
	}
}

// twoDecodeRevisions rolls out decode:1, then decode:2, so that role
// decode has revisions 1 and 2.
func (h *harness) twoDecodeRevisions(t *testing.T) {
	t.Helper()
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.newCommit('b', threeRoles("decode:2"))
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
}
