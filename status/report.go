package status

import (
	"fmt"
	"time"

	"github.com/roleout/roleout/render/revision"
)

// Report is one app in `roleout status`: its phase at the source
// revision last reconciled, the drift not healed, and its roles.
type Report struct {
	App            string  `json:"app"`
	Phase          string  `json:"phase"`
	SourceRevision string  `json:"revision,omitempty"`
	Message        string  `json:"message,omitempty"`
	Drift          []Drift `json:"drift,omitempty"`
	Roles          []*Role `json:"roles,omitempty"`
	// StatusBranch is set when the status branch head was refused (not
	// signed by the status key): what is shown is older.
	StatusBranch *BranchCondition `json:"statusBranch,omitempty"`
	// Owner is the replica that holds the app under dynamic sharding
	// (sharding.mode: dynamic). When none does, Phase is Unowned,
	// RecordedPhase the phase the status branch holds and UnownedSince
	// when the last owner was last seen.
	Owner         string     `json:"owner,omitempty"`
	RecordedPhase string     `json:"recordedPhase,omitempty"`
	UnownedSince  *time.Time `json:"unownedSince,omitempty"`
}

// Unowned marks the report of an app that no live replica holds, since
// since (zero: unknown).
func (r *Report) Unowned(since time.Time) {
	r.RecordedPhase, r.Phase = r.Phase, PhaseUnowned
	if !since.IsZero() {
		r.UnownedSince = &since
	}
}

// Report returns what `roleout status` shows of the app: phase
// NotReconciled when it has no status yet.
func (r *Records) Report() Report {
	rep := Report{App: r.App, Phase: PhaseNotReconciled, StatusBranch: r.Refused}
	if s := r.Status; s != nil {
		rep.Phase, rep.SourceRevision, rep.Message, rep.Drift, rep.Roles = s.Phase, s.SourceRevision, s.Message, s.Drift, s.Roles
	}
	return rep
}

// HistoryReport is what `roleout history` shows: the app's status, each
// role's recorded revisions and the rollout records.
type HistoryReport struct {
	Status    *App                               `json:"status"`
	Revisions map[string][]revision.RoleRevision `json:"revisions"`
	Rollouts  []Rollout                          `json:"rollouts"`
}

// HistoryReport returns what `roleout history` shows of the app; branch
// names the status branch in the error of an app with no status yet.
func (r *Records) HistoryReport(branch string) (*HistoryReport, error) {
	if r.Status == nil {
		return nil, fmt.Errorf("app %s has no status on branch %s yet: the agent has not reconciled it", r.App, branch)
	}
	rollouts, err := r.Rollouts()
	if err != nil {
		return nil, err
	}
	revisions := map[string][]revision.RoleRevision{}
	for role, hist := range r.History {
		out := make([]revision.RoleRevision, len(hist))
		for i, rev := range hist {
			rev.Objects = nil // the report lists revisions, not their objects
			out[i] = rev
		}
		revisions[role] = out
	}
	st := *r.Status
	// A refused head is reported: the records shown are older ones.
	st.StatusBranch = r.Refused
	return &HistoryReport{Status: &st, Revisions: revisions, Rollouts: rollouts}, nil
}
