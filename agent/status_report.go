package agent

import (
	"context"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sources"
)

// PhaseNotReconciled is the phase roleout status shows for an app the
// agent has not recorded yet.
const PhaseNotReconciled = "NotReconciled"

// StatusReport is one app in `roleout status`: its phase at the revision
// last reconciled, the drift not healed, and its roles, from the status
// branch.
type StatusReport struct {
	App      string        `json:"app"`
	Phase    string        `json:"phase"`
	Revision string        `json:"revision,omitempty"`
	Message  string        `json:"message,omitempty"`
	Drift    []Drift       `json:"drift,omitempty"`
	Roles    []*RoleStatus `json:"roles,omitempty"`
	// StatusBranch is set when the status branch head was refused (not
	// signed by the status key): what is shown is older.
	StatusBranch *StatusBranchCondition `json:"statusBranch,omitempty"`
}

// Statuses reads the status of app (every app of cfg when app is "")
// from the status branch, without a cluster.
func Statuses(ctx context.Context, cfg *config.Config, app string) ([]StatusReport, error) {
	apps := cfg.Apps
	if app != "" {
		a, err := cfg.App(app)
		if err != nil {
			return nil, err
		}
		apps = []config.App{a}
	}
	branch := sources.NewStatusBranch(StatusOptions(cfg))
	var out []StatusReport
	for _, a := range apps {
		prev, err := loadPrevious(ctx, branch, a.Name)
		if err != nil {
			return nil, err
		}
		rep := StatusReport{App: a.Name, Phase: PhaseNotReconciled, StatusBranch: prev.refused}
		if s := prev.status; s != nil {
			rep.Phase, rep.Revision, rep.Message, rep.Drift, rep.Roles = s.Phase, s.Revision, s.Message, s.Drift, s.Roles
		}
		out = append(out, rep)
	}
	return out, nil
}
