package agent

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/sources"
)

// maxRolloutRecords bounds history.yaml; older records are dropped.
const maxRolloutRecords = 100

// RolloutRecord is one rollout in an app's history.yaml: what started it,
// when, and what each wave did.
type RolloutRecord struct {
	// Revision is the source revision rolled out.
	Revision string      `json:"revision"`
	Trigger  string      `json:"trigger"` // poll or rollback
	Started  metav1.Time `json:"started"`
	Finished metav1.Time `json:"finished"`
	// Result is Succeeded or Failed.
	Result  string       `json:"result"`
	Message string       `json:"message,omitempty"`
	Waves   []WaveRecord `json:"waves,omitempty"`
	// Pruned lists the objects deleted after the last wave.
	Pruned []string `json:"pruned,omitempty"`
	// Drift is the drift the watches found that started this record
	// (trigger drift): healed, or recorded only (selfHeal: false).
	Drift []Drift `json:"drift,omitempty"`
}

// WaveRecord is one wave of a rollout.
type WaveRecord struct {
	UpgradeOrder int          `json:"upgradeOrder"`
	Roles        []RoleRecord `json:"roles"`
	Result       string       `json:"result"`
	Elapsed      string       `json:"elapsed"`
}

// RoleRecord is a role a wave applied.
type RoleRecord struct {
	Name         string `json:"name"`
	Revision     int64  `json:"revision"`
	RevisionName string `json:"revisionName"`
	// Action is update or rollback in KEP-238 terms, the revision
	// history's decision (a first install is an update here, while plans
	// and previews call it install: revision.Decision.PlanAction), or
	// retry or heal.
	Action string `json:"action"`
}

func historyPath(app string) string { return path.Join(app, "history.yaml") }

// readHistory returns the rollout records in prev's files.
func readHistory(files map[string][]byte, app string) ([]RolloutRecord, error) {
	data, ok := files[historyPath(app)]
	if !ok {
		return nil, nil
	}
	var records []RolloutRecord
	if err := yaml.UnmarshalStrict(data, &records); err != nil {
		return nil, fmt.Errorf("status branch file %s is not a valid history: %w (fix or delete it on the status branch)", historyPath(app), err)
	}
	return records, nil
}

// mergeStatusFile is the status branch's Merge hook: an app's
// history.yaml that another writer changed keeps both sides' rollout
// records; any other file is ours.
func mergeStatusFile(p string, remote, ours []byte) ([]byte, error) {
	app, name, ok := strings.Cut(p, "/")
	if !ok || name != "history.yaml" {
		return ours, nil
	}
	return mergeHistory(app, remote, ours)
}

// mergeHistory unions two versions of an app's history.yaml. A record is
// keyed by revision, trigger and start time; on a key both hold, ours
// wins. Records are sorted by start time (on a tie the remote's first)
// and the newest maxRolloutRecords kept.
func mergeHistory(app string, remote, ours []byte) ([]byte, error) {
	theirs, err := readHistory(map[string][]byte{historyPath(app): remote}, app)
	if err != nil {
		return nil, err
	}
	mine, err := readHistory(map[string][]byte{historyPath(app): ours}, app)
	if err != nil {
		return nil, err
	}
	type key struct {
		revision, trigger string
		started           int64
	}
	keyOf := func(r RolloutRecord) key { return key{r.Revision, r.Trigger, r.Started.Unix()} }
	at := map[key]int{}
	var records []RolloutRecord
	for _, r := range append(theirs, mine...) {
		if i, ok := at[keyOf(r)]; ok {
			records[i] = r // ours come last and win
			continue
		}
		at[keyOf(r)] = len(records)
		records = append(records, r)
	}
	sort.SliceStable(records, func(i, j int) bool { return records[i].Started.Before(&records[j].Started) })
	if len(records) > maxRolloutRecords {
		records = records[len(records)-maxRolloutRecords:]
	}
	return yaml.Marshal(records)
}

// recordWave adds wave i's record to the rollout being recorded.
func (r *rollout) recordWave(i int, started time.Time, err error) {
	w := r.plan.Waves[i]
	rec := WaveRecord{UpgradeOrder: w.UpgradeOrder, Result: PhaseSucceeded, Elapsed: time.Since(started).Round(time.Millisecond).String()}
	if err != nil {
		rec.Result = PhaseFailed
	}
	for _, role := range w.Roles {
		if r.apply[role.Name] {
			d := role.Decision
			action := string(d.Action)
			switch {
			case r.healing[role.Name]:
				action = "heal"
			case d.Action == revision.Unchanged:
				action = "retry"
			}
			rec.Roles = append(rec.Roles, RoleRecord{Name: role.Name, Revision: d.Revision.Number, RevisionName: d.Revision.Name, Action: action})
		}
	}
	r.waves = append(r.waves, rec)
}

// historyFile appends this rollout's record to the app's history, when it
// applied or tried to apply anything, and returns the new history.yaml. A
// nil rollout (nothing planned) records a failure only: trigger poll,
// started now.
func (r *rollout) historyFile(app string, prev []RolloutRecord, st *AppStatus) ([]byte, bool, error) {
	trigger, started := "poll", time.Now()
	rec := RolloutRecord{Revision: st.Revision, Result: st.Phase, Message: st.Message}
	if r != nil {
		trigger, started = r.trigger, r.started
		rec.Waves, rec.Pruned, rec.Drift = r.waves, r.pruned, r.recordedDrift()
	}
	if len(rec.Waves) == 0 && len(rec.Pruned) == 0 && len(rec.Drift) == 0 && st.Phase != PhaseFailed {
		return nil, false, nil
	}
	rec.Trigger, rec.Started = trigger, metav1.NewTime(started.UTC().Truncate(time.Second))
	rec.Finished = metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	// A failure that repeats at every poll (the same revision, the same
	// error) is recorded once, so a broken commit does not make a status
	// commit per poll.
	if n := len(prev); n > 0 && rec.Result == PhaseFailed {
		last := prev[n-1]
		if last.Result == PhaseFailed && last.Revision == rec.Revision && last.Message == rec.Message {
			return nil, false, nil
		}
	}
	records := append(append([]RolloutRecord(nil), prev...), rec)
	if len(records) > maxRolloutRecords {
		records = records[len(records)-maxRolloutRecords:]
	}
	data, err := yaml.Marshal(records)
	return data, true, err
}

// HistoryReport is what `roleout history` shows: the app's status, each
// role's recorded revisions and the rollout records, from git.
type HistoryReport struct {
	Status    *AppStatus                         `json:"status"`
	Revisions map[string][]revision.RoleRevision `json:"revisions"`
	Rollouts  []RolloutRecord                    `json:"rollouts"`
}

// History reads an app's status, revisions and rollout records from the
// status branch, without a cluster.
func History(ctx context.Context, cfg *config.Config, appName string) (*HistoryReport, error) {
	app, err := cfg.App(appName)
	if err != nil {
		return nil, err
	}
	prev, err := loadPrevious(ctx, sources.NewStatusBranch(StatusOptions(cfg)), app.Name)
	if err != nil {
		return nil, err
	}
	if prev.status == nil {
		return nil, fmt.Errorf("app %s has no status on branch %s yet: the agent has not reconciled it", app.Name, cfg.Status.Branch)
	}
	records, err := readHistory(prev.files, app.Name)
	if err != nil {
		return nil, err
	}
	for role, hist := range prev.history {
		for i := range hist {
			hist[i].Objects = nil // the report lists revisions, not their objects
		}
		prev.history[role] = hist
	}
	// A refused head is reported: the records shown are older ones.
	prev.status.StatusBranch = prev.refused
	return &HistoryReport{Status: prev.status, Revisions: prev.history, Rollouts: records}, nil
}
