package agent

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/sirupsen/logrus"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/sources"
)

// Status file kinds and the phases of an app.
const (
	StatusKind = "AppStatus"

	PhaseSucceeded = "Succeeded"
	// PhaseProgressing: a rollout is between waves (or was stopped there
	// by a newer commit); a restarted agent resumes it.
	PhaseProgressing = "Progressing"
	PhaseFailed      = "Failed"
	PhasePaused      = "Paused"
	// PhaseSuspended: suspended by roleout suspend (the control
	// ConfigMap); planned, nothing applied or healed; the message says
	// by whom and since when.
	PhaseSuspended = "Suspended"
	// PhaseWaiting: outside the app's rollout windows; planned, nothing
	// applied; the message says when the next window opens.
	PhaseWaiting = "WaitingForWindow"
)

// Role results recorded in status.
const (
	RoleApplied   = "Applied"   // written in this rollout and healthy
	RoleUnchanged = "Unchanged" // its template hash was already applied
	RoleFailed    = "Failed"    // apply or health wait failed
	RolePending   = "Pending"   // not reached: an earlier wave failed, or paused
)

// AppStatus is an app's status.yaml on the status branch (docs/design.md,
// "The status branch"): what the agent last reconciled and, per role,
// what is applied.
type AppStatus struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	App        string `json:"app"`
	// Source is the repository URL, credentials redacted, and Path the
	// overlay.
	Source string `json:"source"`
	Path   string `json:"path"`
	// Revision is the source revision last reconciled (main@sha1:…).
	Revision string `json:"revision"`
	Phase    string `json:"phase"`
	// Message explains a Failed, Paused or Suspended phase.
	Message string `json:"message,omitempty"`
	// HistoryRewritten records that the followed branch was force-pushed
	// between the previous revision and this one.
	HistoryRewritten *Rewrite      `json:"historyRewritten,omitempty"`
	Prerequisites    *StepStatus   `json:"prerequisites,omitempty"`
	Roles            []*RoleStatus `json:"roles,omitempty"`
	// StatusBranch is set when this reconcile refused the status branch
	// head: it was not signed by status.signingKeyFile.
	StatusBranch *StatusBranchCondition `json:"statusBranch,omitempty"`
	// Attempts counts the failed attempts at Revision in a row, and
	// RetryAfter is when the running agent tries it again: retries of one
	// commit back off (1m, 2m, 4m, … at most 30m) instead of waiting out
	// the same wave's timeout at every poll. roleout run --once retries at
	// once.
	Attempts   int          `json:"attempts,omitempty"`
	RetryAfter *metav1.Time `json:"retryAfter,omitempty"`
	// Drift is the drift the running agent's watches see now and did not
	// heal: with selfHeal off, while paused or suspended, outside a
	// window, or when healing failed.
	Drift []Drift `json:"drift,omitempty"`
}

// StatusBranchCondition reports a status branch head the agent refused
// because its status signing key did not sign it (docs/design.md, "The
// status branch"). The agent read its records from ReadFrom instead, the
// newest ancestor it signed, or, with none, acted as on a fresh install
// (plans everything, prunes nothing); its next commit goes on top of the
// refused head with the trusted records.
type StatusBranchCondition struct {
	// Head is the refused commit, Signer who signed it ("" unsigned) and
	// Reason why it is refused.
	Head   string `json:"head"`
	Signer string `json:"signer,omitempty"`
	Reason string `json:"reason"`
	// ReadFrom is the commit whose records were read; "" for none.
	ReadFrom string `json:"readFrom,omitempty"`
	Message  string `json:"message"`
}

// statusBranchCondition returns the condition of a read that refused the
// head, or nil.
func statusBranchCondition(r sources.StatusRead) *StatusBranchCondition {
	if r.Refused == nil {
		return nil
	}
	c := &StatusBranchCondition{Head: r.Head, Signer: r.Refused.Signer, Reason: r.Refused.Reason, ReadFrom: r.Commit}
	by := "unsigned"
	if c.Signer != "" {
		by = "signed by " + c.Signer
	}
	c.Message = fmt.Sprintf("status branch head %s (%s) is not signed by status.signingKeyFile: %s; refused", short(c.Head), by, c.Reason)
	if c.ReadFrom != "" {
		c.Message += fmt.Sprintf(", records read from %s, the newest commit the agent signed", short(c.ReadFrom))
	} else {
		c.Message += "; no recent commit is signed by the agent, so it acts as on a fresh install: plans everything, prunes nothing"
	}
	return c
}

// Rewrite is a force-push seen on the followed branch.
type Rewrite struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// StepStatus is the prerequisite step's applied hash.
type StepStatus struct {
	Hash    string `json:"hash"`
	Objects int    `json:"objects"`
}

// RoleStatus is one role in status.
type RoleStatus struct {
	Name         string `json:"name"`
	UpgradeOrder int    `json:"upgradeOrder"`
	// Hash, Revision and RevisionName describe the template applied and
	// healthy; they stay at the previous values when a rollout fails.
	Hash         string `json:"hash,omitempty"`
	Revision     int64  `json:"revision,omitempty"`
	RevisionName string `json:"revisionName,omitempty"`
	// AppliedRevision is the source revision Hash was applied from.
	AppliedRevision string `json:"appliedRevision,omitempty"`
	// FailedRevision and FailedRevisionName are the role revision the
	// last rollout tried and failed to make healthy, beside the one
	// above that last succeeded (0 and "" when none).
	FailedRevision     int64  `json:"failedRevision,omitempty"`
	FailedRevisionName string `json:"failedRevisionName,omitempty"`
	Objects            int    `json:"objects"`
	// Result is what the last reconcile did to the role.
	Result  string `json:"result"`
	Message string `json:"message,omitempty"`
	// Workloads are the role's workloads with the identity predicted for
	// the applied template and the one observed after its wave.
	Workloads []WorkloadStatus `json:"workloads,omitempty"`
}

// WorkloadStatus is a workload's predicted and observed identity: the
// workload as the plan showed it, and what its controller made.
type WorkloadStatus struct {
	render.WorkloadSummary
	// Observed is what the controller made, read after the wave; nil
	// when it could not be read.
	Observed *object.Identity `json:"observed,omitempty"`
	// Match says predicted and observed are equal.
	Match bool `json:"match"`
}

// role returns the status of role name, or nil.
func (s *AppStatus) role(name string) *RoleStatus {
	if s == nil {
		return nil
	}
	for _, r := range s.Roles {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Paths of an app's files on the status branch (docs/design.md, "The
// status branch").
func statusPath(app string) string    { return path.Join(app, "status.yaml") }
func inventoryPath(app string) string { return path.Join(app, "inventory.yaml") }

// revisionPath returns where revision name of role lives on the status
// branch: <app>/revisions/<role>/<name>.yaml. Role names come from
// rendered objects and revision names from the status branch itself, so
// as a defence beyond render.CheckRoleName every component is checked:
// app and role must be DNS labels and name (<app>-<role>-<hash>) a DNS
// subdomain, none of which can hold "/" or "..", so no path leaves the
// role's directory.
func revisionPath(app, role, name string) (string, error) {
	for _, c := range []struct{ what, v string }{{"app", app}, {"role", role}} {
		if msgs := validation.IsDNS1123Label(c.v); len(msgs) > 0 {
			return "", fmt.Errorf("refuse a status branch path with %s %q: %s", c.what, c.v, strings.Join(msgs, "; "))
		}
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return "", fmt.Errorf("refuse a status branch path with revision %q of role %s: %s", name, role, strings.Join(msgs, "; "))
	}
	return path.Join(app, "revisions", role, name+".yaml"), nil
}

// previous is what the status branch records of an app.
type previous struct {
	status    *AppStatus
	history   map[string][]revision.RoleRevision
	inventory []render.InventoryEntry
	// files are the app's files as read, to tell which to delete.
	files map[string][]byte
	// refused is set when the status branch head was refused and the
	// records come from an older commit, or from none.
	refused *StatusBranchCondition
}

// loadPrevious reads an app's status, inventory and role revisions from
// the status branch, as far as the reader trusts it (a head the status
// signing key did not sign is never read). A file that does not parse is
// an error that names it and says how to fix it; nothing is applied until
// it is fixed.
func loadPrevious(ctx context.Context, r StatusReader, app string) (*previous, error) {
	read, err := r.Read(ctx, app)
	if err != nil {
		return nil, err
	}
	files := read.Files
	p := &previous{history: map[string][]revision.RoleRevision{}, files: files, refused: statusBranchCondition(read)}
	if data, ok := files[statusPath(app)]; ok {
		if p.status, err = parseStatus(data, statusPath(app)); err != nil {
			return nil, err
		}
	}
	if data, ok := files[inventoryPath(app)]; ok {
		if err := yaml.UnmarshalStrict(data, &p.inventory); err != nil {
			return nil, fmt.Errorf("status branch file %s is not a valid inventory: %w (fix or delete it on the status branch)", inventoryPath(app), err)
		}
	}
	prefix := path.Join(app, "revisions") + "/"
	for name, data := range files {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		var cr appsv1.ControllerRevision
		if err := yaml.UnmarshalStrict(data, &cr); err != nil {
			return nil, fmt.Errorf("status branch file %s is not a valid ControllerRevision: %w (fix or delete it on the status branch)", name, err)
		}
		rev, err := revision.FromControllerRevision(&cr)
		if err != nil {
			return nil, fmt.Errorf("status branch file %s: %w", name, err)
		}
		role, _, _ := strings.Cut(strings.TrimPrefix(name, prefix), "/")
		want, err := revisionPath(app, role, rev.Name)
		if err != nil {
			return nil, fmt.Errorf("status branch file %s: %w (fix or delete it on the status branch)", name, err)
		}
		if want != name {
			return nil, fmt.Errorf("status branch file %s holds revision %s, whose file is %s (fix or delete it on the status branch)", name, rev.Name, want)
		}
		p.history[role] = append(p.history[role], rev)
	}
	for _, h := range p.history {
		sort.Slice(h, func(i, j int) bool { return h[i].Number < h[j].Number })
	}
	return p, nil
}

// readPrevious is loadPrevious from the agent's status branch, with a
// refused head logged: the message names the commit and who signed it.
func (a *Agent) readPrevious(ctx context.Context, log logrus.FieldLogger, app string) (*previous, error) {
	prev, err := loadPrevious(ctx, a.deps.Status, app)
	if err == nil && prev.refused != nil {
		c := prev.refused
		log.WithFields(logrus.Fields{"statusHead": short(c.Head), "signer": c.Signer, "readFrom": short(c.ReadFrom)}).Error(c.Message)
	}
	return prev, err
}

// parseStatus decodes a status.yaml strictly.
func parseStatus(data []byte, name string) (*AppStatus, error) {
	var s AppStatus
	if err := yaml.UnmarshalStrict(data, &s); err != nil {
		return nil, fmt.Errorf("status branch file %s is not a valid status: %w (fix or delete it on the status branch)", name, err)
	}
	if s.Kind != StatusKind {
		return nil, fmt.Errorf("status branch file %s has kind %q, want %s", name, s.Kind, StatusKind)
	}
	return &s, nil
}

// encode returns the status as YAML.
func (s *AppStatus) encode() ([]byte, error) {
	return yaml.Marshal(s)
}
