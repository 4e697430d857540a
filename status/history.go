package status

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// MaxRollouts bounds history.yaml; older records are dropped.
const MaxRollouts = 100

// MaxRecordedWorkloads bounds the workloads a role's record keeps
// (RoleRecord.Workloads), those whose observed identity is not the
// predicted one first; MoreWorkloads counts the rest. A record is written
// once and never changed, and an app of a thousand workloads does not
// make history.yaml a hundred times that.
const MaxRecordedWorkloads = 20

// Rollout is one rollout in an app's history.yaml: what started it, when,
// and what each wave did.
type Rollout struct {
	// SourceRevision is the source revision rolled out.
	SourceRevision string `json:"revision"`
	// Trigger is poll, rollback or drift.
	Trigger  string      `json:"trigger"`
	Started  metav1.Time `json:"started"`
	Finished metav1.Time `json:"finished"`
	// Result is Succeeded or Failed.
	Result  string `json:"result"`
	Message string `json:"message,omitempty"`
	Waves   []Wave `json:"waves,omitempty"`
	// Pruned lists the objects deleted after the last wave.
	Pruned []string `json:"pruned,omitempty"`
	// Drift is the drift the watches found that started this record
	// (trigger drift): healed, or recorded only (selfHeal: false).
	Drift []Drift `json:"drift,omitempty"`
}

// Wave is one wave of a rollout.
type Wave struct {
	UpgradeOrder int          `json:"upgradeOrder"`
	Roles        []RoleRecord `json:"roles"`
	Result       string       `json:"result"`
	Elapsed      string       `json:"elapsed"`
}

// RoleRecord is a role a wave applied.
type RoleRecord struct {
	Name           string `json:"name"`
	RevisionNumber int64  `json:"revision"`
	RevisionName   string `json:"revisionName"`
	// Action is what the wave did to the role, as plans and previews
	// name it (revision.Decision.PlanAction): install (its first
	// revision), update or rollback; or retry or heal. Records written
	// before roleout named installs call a first install update.
	Action string `json:"action"`
	// Workloads are the role's workloads with the identity predicted for
	// the template applied and the one observed after the wave: at most
	// MaxRecordedWorkloads, mismatches first; MoreWorkloads are the rest,
	// MoreMatched how many of them were observed as predicted.
	Workloads     []Workload `json:"workloads,omitempty"`
	MoreWorkloads int        `json:"moreWorkloads,omitempty"`
	MoreMatched   int        `json:"moreMatched,omitempty"`
}

// ActionName is r's Action as plans name it: a record written before
// roleout named first installs says update for revision 1, which is an
// install.
func (r RoleRecord) ActionName() string {
	if r.Action == "update" && r.RevisionNumber == 1 {
		return "install"
	}
	return r.Action
}

// RecordWorkloads sets r's workloads from ws, as MaxRecordedWorkloads
// bounds them.
func (r *RoleRecord) RecordWorkloads(ws []Workload) {
	sorted := slices.Clone(ws)
	slices.SortStableFunc(sorted, func(a, b Workload) int { // mismatches first
		switch {
		case !a.Match && b.Match:
			return -1
		case a.Match && !b.Match:
			return 1
		}
		return 0
	})
	r.Workloads, r.MoreWorkloads, r.MoreMatched = sorted, 0, 0
	if len(sorted) > MaxRecordedWorkloads {
		r.Workloads = sorted[:MaxRecordedWorkloads]
		for _, w := range sorted[MaxRecordedWorkloads:] {
			r.MoreWorkloads++
			if w.Match {
				r.MoreMatched++
			}
		}
	}
}

// ReadHistory returns the rollout records of app among files, an app's
// files as read from the status branch.
func ReadHistory(files map[string][]byte, app string) ([]Rollout, error) {
	data, ok := files[HistoryPath(app)]
	if !ok {
		return nil, nil
	}
	var records []Rollout
	if err := yaml.UnmarshalStrict(data, &records); err != nil {
		return nil, fmt.Errorf("status branch file %s is not a valid history: %w (fix or delete it on the status branch)", HistoryPath(app), err)
	}
	return records, nil
}

// AppendRollout returns prev with rec added, the newest MaxRollouts kept,
// and whether there is anything new to record: a failure that repeats at
// every poll (the same source revision, the same error) is recorded once,
// so a broken commit does not make a status commit per poll.
func AppendRollout(prev []Rollout, rec Rollout) ([]Rollout, bool) {
	if n := len(prev); n > 0 && rec.Result == PhaseFailed {
		last := prev[n-1]
		if last.Result == PhaseFailed && last.SourceRevision == rec.SourceRevision && last.Message == rec.Message {
			return prev, false
		}
	}
	records := append(append([]Rollout(nil), prev...), rec)
	if len(records) > MaxRollouts {
		records = records[len(records)-MaxRollouts:]
	}
	return records, true
}

// MergeFile is the status branch's Merge hook: an app's history.yaml
// that another writer changed keeps both sides' rollout records; any
// other file is ours.
func MergeFile(p string, remote, ours []byte) ([]byte, error) {
	app, name, ok := strings.Cut(p, "/")
	if !ok || name != "history.yaml" {
		return ours, nil
	}
	return mergeHistory(app, remote, ours)
}

// mergeHistory unions two versions of an app's history.yaml. A record is
// keyed by source revision, trigger and start time; on a key both hold,
// ours wins. Records are sorted by start time (on a tie the remote's
// first) and the newest MaxRollouts kept.
func mergeHistory(app string, remote, ours []byte) ([]byte, error) {
	theirs, err := ReadHistory(map[string][]byte{HistoryPath(app): remote}, app)
	if err != nil {
		return nil, err
	}
	mine, err := ReadHistory(map[string][]byte{HistoryPath(app): ours}, app)
	if err != nil {
		return nil, err
	}
	type key struct {
		revision, trigger string
		started           int64
	}
	keyOf := func(r Rollout) key { return key{r.SourceRevision, r.Trigger, r.Started.Unix()} }
	at := map[key]int{}
	var records []Rollout
	for _, r := range append(theirs, mine...) {
		if i, ok := at[keyOf(r)]; ok {
			records[i] = r // ours come last and win
			continue
		}
		at[keyOf(r)] = len(records)
		records = append(records, r)
	}
	sort.SliceStable(records, func(i, j int) bool { return records[i].Started.Before(&records[j].Started) })
	if len(records) > MaxRollouts {
		records = records[len(records)-MaxRollouts:]
	}
	return yaml.Marshal(records)
}
