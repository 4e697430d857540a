package status

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// TestMergeStatusFile merges two writers' versions of status files the
// way the status branch's Merge hook is called.
func TestMergeStatusFile(t *testing.T) {
	at := func(min int) metav1.Time { return metav1.NewTime(time.Date(2025, 1, 1, 0, min, 0, 0, time.UTC)) }
	rec := func(rev string, min int, result string) Rollout {
		return Rollout{SourceRevision: rev, Trigger: "poll", Started: at(min), Finished: at(min + 1), Result: result}
	}
	many := func(from, n int) []Rollout {
		var out []Rollout
		for i := range n {
			out = append(out, rec(fmt.Sprintf("main@sha1:%07d", from+i), from+i, PhaseSucceeded))
		}
		return out
	}
	cases := []struct {
		name         string
		path         string
		remote, ours []Rollout
		want         []Rollout
		rawRemote    string
		wantErr      string
	}{
		{name: "both sides' records, by start time", path: "web/history.yaml",
			remote: []Rollout{rec("a", 1, PhaseSucceeded), rec("c", 3, PhaseSucceeded)},
			ours:   []Rollout{rec("a", 1, PhaseSucceeded), rec("b", 2, PhaseFailed)},
			want:   []Rollout{rec("a", 1, PhaseSucceeded), rec("b", 2, PhaseFailed), rec("c", 3, PhaseSucceeded)}},
		{name: "ours wins on the same revision, trigger and start", path: "web/history.yaml",
			remote: []Rollout{rec("a", 1, PhaseFailed)},
			ours:   []Rollout{rec("a", 1, PhaseSucceeded)},
			want:   []Rollout{rec("a", 1, PhaseSucceeded)}},
		{name: "a rollback at the same time is another record, the remote first", path: "web/history.yaml",
			remote: []Rollout{{SourceRevision: "a", Trigger: "rollback", Started: at(1), Finished: at(2), Result: PhaseSucceeded}},
			ours:   []Rollout{rec("a", 1, PhaseSucceeded)},
			want:   []Rollout{{SourceRevision: "a", Trigger: "rollback", Started: at(1), Finished: at(2), Result: PhaseSucceeded}, rec("a", 1, PhaseSucceeded)}},
		{name: "bounded, newest kept", path: "web/history.yaml",
			remote: many(0, MaxRollouts), ours: many(50, MaxRollouts),
			want: many(50, MaxRollouts)},
		{name: "not a history: ours", path: "web/status.yaml",
			remote: []Rollout{rec("a", 1, PhaseSucceeded)}, ours: []Rollout{rec("b", 2, PhaseSucceeded)},
			want: []Rollout{rec("b", 2, PhaseSucceeded)}},
		{name: "a history.yaml deeper down: ours", path: "web/previews/history.yaml",
			remote: []Rollout{rec("a", 1, PhaseSucceeded)}, ours: []Rollout{rec("b", 2, PhaseSucceeded)},
			want: []Rollout{rec("b", 2, PhaseSucceeded)}},
		{name: "remote not a history", path: "web/history.yaml", rawRemote: "phase: Succeeded\n",
			ours: []Rollout{rec("b", 2, PhaseSucceeded)}, wantErr: "status branch file web/history.yaml is not a valid history"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			remote, ours := mustYAML(t, tc.remote), mustYAML(t, tc.ours)
			if tc.rawRemote != "" {
				remote = []byte(tc.rawRemote)
			}
			got, err := MergeFile(tc.path, remote, ours)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(mustYAML(t, tc.want)), string(got)); diff != "" {
				t.Errorf("merged (-want +got)\n%s", diff)
			}
		})
	}
}

func mustYAML(t *testing.T, records []Rollout) []byte {
	t.Helper()
	data, err := yaml.Marshal(records)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestHistoryTwoWriters has two status writers with the agent's merge
// hook append rollout records to one app's history.yaml at once, on the
// first, and counts the rest.
func TestRecordWorkloads(t *testing.T) {
	var ws []Workload
	for i := range MaxRecordedWorkloads + 5 {
		ws = append(ws, Workload{Match: i != 23 && i != 24})
	}
	var r RoleRecord
	r.RecordWorkloads(ws)
	if len(r.Workloads) != MaxRecordedWorkloads || r.Workloads[0].Match || r.Workloads[1].Match || !r.Workloads[2].Match {
		t.Errorf("kept %d workloads, the first two matched: %v %v; want %d, mismatches first", len(r.Workloads), r.Workloads[0].Match, r.Workloads[1].Match, MaxRecordedWorkloads)
	}
	if r.MoreWorkloads != 5 || r.MoreMatched != 5 {
		t.Errorf("more %d, matched %d; want 5 and 5", r.MoreWorkloads, r.MoreMatched)
	}
	if !ws[0].Match || ws[23].Match != false {
		t.Error("the caller's workloads were reordered")
	}
}
