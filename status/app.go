package status

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// Kind is the kind of a status.yaml.
const Kind = "AppStatus"

// The phases of an app.
const (
	PhaseSucceeded = "Succeeded"
	// PhaseRolledBack: the rollout succeeded with a role held at a
	// recorded revision by roleout rollback (Rollback says which) until a
	// commit changes that role or roleout resume ends the hold.
	PhaseRolledBack = "RolledBack"
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
	// PhaseWaitingForDependencies: an app it depends on (dependsOn) is
	// not rolled out and healthy at this commit yet; nothing applied; the
	// message names them.
	PhaseWaitingForDependencies = "WaitingForDependencies"
	// PhaseRemoved: the app's directory left git and its generator
	// (appGenerators) no longer makes it; the message says whether its
	// objects were pruned or left in the cluster.
	PhaseRemoved = "Removed"
	// PhaseNotReconciled is the phase roleout status shows for an app the
	// agent has not recorded yet; no status.yaml holds it.
	PhaseNotReconciled = "NotReconciled"
	// PhaseUnowned is the phase roleout status shows, under dynamic
	// sharding, for an app that no live replica holds: whatever its
	// status says, nothing reconciles it.
	PhaseUnowned = "Unowned"
)

// Settled reports whether phase is the end of a rollout that succeeded:
// Succeeded, or RolledBack.
func Settled(phase string) bool { return phase == PhaseSucceeded || phase == PhaseRolledBack }

// The states of a rollback request in status (Rollback.State).
const (
	// RollbackPending: not carried out yet; a gate holds the app
	// (suspended, paused, outside its windows) or a newer commit
	// interrupted it.
	RollbackPending = "Pending"
	// RollbackHeld: applied and healthy; the role stays at the revision.
	RollbackHeld = "Held"
	// RollbackFailed: applied and not healthy; retried as any failed
	// rollout is.
	RollbackFailed = "Failed"
	// RollbackRefused: the request names no revision that can be put
	// back; nothing of it was applied.
	RollbackRefused = "Refused"
	// RollbackEnded: a commit changed the role, or roleout resume ended
	// the hold; git's version is rolled out again.
	RollbackEnded = "Ended"
)

// Rollback is what the agent did with the app's rollback request
// (roleout rollback).
type Rollback struct {
	Role       string `json:"role"`
	ToRevision int64  `json:"toRevision"`
	// RequestedAt names the request; RequestedBy is who made it.
	RequestedAt string `json:"requestedAt"`
	RequestedBy string `json:"requestedBy,omitempty"`
	State       string `json:"state"`
	// RevisionNumber, RevisionName and Hash are the role revision the
	// restored objects became (the role's next number).
	RevisionNumber int64  `json:"revision,omitempty"`
	RevisionName   string `json:"revisionName,omitempty"`
	Hash           string `json:"hash,omitempty"`
	// GitHash is the role's hash in git when the rollback was carried
	// out: a commit that renders the role otherwise ends the hold.
	GitHash string `json:"gitHash,omitempty"`
	Message string `json:"message,omitempty"`
}

// Active reports whether r still holds (or is to hold) its role.
func (r *Rollback) Active() bool {
	return r != nil && (r.State == RollbackPending || r.State == RollbackHeld || r.State == RollbackFailed)
}

// RollbackResult is the outcome of a rollback request as the status branch
// records it (roleout rollback --output json).
type RollbackResult struct {
	App  string `json:"app"`
	Role string `json:"role"`
	// ToRevision is the recorded revision restored (--to-revision);
	// RevisionNumber, RevisionName and Hash the role revision it became, the
	// role's next number.
	ToRevision     int64  `json:"toRevision"`
	RevisionNumber int64  `json:"revision"`
	RevisionName   string `json:"revisionName"`
	Hash           string `json:"hash"`
	// State is the request's (Rollback*): Held once carried out.
	State string `json:"state"`
	// Phase is the app's phase after the rollback (RolledBack once
	// held), Result the role's (Applied or Failed), Message why it
	// failed or was refused.
	Phase   string `json:"phase"`
	Result  string `json:"result"`
	Message string `json:"message,omitempty"`
	// StatusCommit is the status-branch commit the outcome was read from.
	StatusCommit string `json:"statusCommit,omitempty"`
}

// RollbackOutcome returns the outcome of the rollback request made at
// requestedAt as s records it, read from commit; nil when s records none.
func (s *App) RollbackOutcome(requestedAt, commit string) *RollbackResult {
	if s == nil || s.Rollback == nil || s.Rollback.RequestedAt != requestedAt {
		return nil
	}
	r := s.Rollback
	res := &RollbackResult{App: s.App, Role: r.Role, ToRevision: r.ToRevision, RevisionNumber: r.RevisionNumber, RevisionName: r.RevisionName,
		Hash: r.Hash, State: r.State, Phase: s.Phase, Message: r.Message, StatusCommit: commit}
	if rs := s.Role(r.Role); rs != nil {
		res.Result = rs.Result
	}
	return res
}

// The results of a role in status.
const (
	RoleApplied   = "Applied"   // written in this rollout and healthy
	RoleUnchanged = "Unchanged" // its template hash was already applied
	RoleFailed    = "Failed"    // apply or health wait failed
	RolePending   = "Pending"   // not reached: an earlier wave failed, or paused
	// RoleHealed: its drifted objects were applied again at the revision
	// already recorded.
	RoleHealed = "Healed"
)

// App is an app's status.yaml on the status branch (docs/design.md, "The
// status branch"): what the agent last reconciled and, per role, what is
// applied.
type App struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	App        string `json:"app"`
	// Source is the repository URL, credentials redacted, and Path the
	// overlay.
	Source string `json:"source"`
	Path   string `json:"path"`
	// SourceRevision is the source revision last reconciled
	// (main@sha1:…).
	SourceRevision string `json:"revision"`
	Phase          string `json:"phase"`
	// Message explains a Failed, Paused or Suspended phase.
	Message string `json:"message,omitempty"`
	// HistoryRewritten records that the followed branch was force-pushed
	// between the previous source revision and this one.
	HistoryRewritten *Rewrite `json:"historyRewritten,omitempty"`
	Prerequisites    *Step    `json:"prerequisites,omitempty"`
	Roles            []*Role  `json:"roles,omitempty"`
	// StatusBranch is set when this reconcile refused the status branch
	// head: it was not signed by status.signingKeyFile.
	StatusBranch *BranchCondition `json:"statusBranch,omitempty"`
	// Attempts counts the failed attempts at SourceRevision in a row, and
	// RetryAfter is when the running agent tries it again: retries of one
	// commit back off (1m, 2m, 4m, … at most 30m) instead of waiting out
	// the same wave's timeout at every poll. roleout run --once retries at
	// once.
	Attempts   int          `json:"attempts,omitempty"`
	RetryAfter *metav1.Time `json:"retryAfter,omitempty"`
	// Rollback is the app's rollback request as the agent carried it out
	// (roleout rollback), while it holds and after it ended.
	Rollback *Rollback `json:"rollback,omitempty"`
	// Drift is the drift the running agent's watches see now and did not
	// heal: with selfHeal off, while paused or suspended, outside a
	// window, or when healing failed.
	Drift []Drift `json:"drift,omitempty"`
}

// Role returns the status of role name, or nil.
func (s *App) Role(name string) *Role {
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

// Encode returns the status as YAML.
func (s *App) Encode() ([]byte, error) { return yaml.Marshal(s) }

// ParseApp decodes a status.yaml strictly; name is the file, for errors.
func ParseApp(data []byte, name string) (*App, error) {
	var s App
	if err := yaml.UnmarshalStrict(data, &s); err != nil {
		return nil, fmt.Errorf("status branch file %s is not a valid status: %w (fix or delete it on the status branch)", name, err)
	}
	if s.Kind != Kind {
		return nil, fmt.Errorf("status branch file %s has kind %q, want %s", name, s.Kind, Kind)
	}
	return &s, nil
}

// BranchCondition reports a status branch head the agent refused because
// its status signing key did not sign it (docs/design.md, "The status
// branch"). The agent read its records from ReadFrom instead, the newest
// ancestor it signed, or, with none, acted as on a fresh install (plans
// everything, prunes nothing); its next commit goes on top of the refused
// head with the trusted records.
type BranchCondition struct {
	// Head is the refused commit, Signer who signed it ("" unsigned) and
	// Reason why it is refused.
	Head   string `json:"head"`
	Signer string `json:"signer,omitempty"`
	Reason string `json:"reason"`
	// ReadFrom is the commit whose records were read; "" for none.
	ReadFrom string `json:"readFrom,omitempty"`
	Message  string `json:"message"`
}

// Condition returns the condition of a read that refused the head, or
// nil.
func Condition(r Read) *BranchCondition {
	if r.Refused == nil {
		return nil
	}
	c := &BranchCondition{Head: r.Head, Signer: r.Refused.Signer, Reason: r.Refused.Reason, ReadFrom: r.Commit}
	by := "unsigned"
	if c.Signer != "" {
		by = "signed by " + c.Signer
	}
	c.Message = fmt.Sprintf("status branch head %s (%s) is not signed by status.signingKeyFile: %s; refused", Short(c.Head), by, c.Reason)
	if c.ReadFrom != "" {
		c.Message += fmt.Sprintf(", records read from %s, the newest commit the agent signed", Short(c.ReadFrom))
	} else {
		c.Message += "; no recent commit is signed by the agent, so it acts as on a fresh install: plans everything, prunes nothing"
	}
	return c
}

// Short is a commit's first 7 characters.
func Short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}

// Rewrite is a force-push seen on the followed branch.
type Rewrite struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Step is the prerequisite step's applied hash.
type Step struct {
	Hash    string `json:"hash"`
	Objects int    `json:"objects"`
}

// Role is one role in status.
type Role struct {
	Name         string `json:"name"`
	UpgradeOrder int    `json:"upgradeOrder"`
	// Hash, RevisionNumber and RevisionName describe the role revision
	// applied and healthy; they stay at the previous values when a
	// rollout fails.
	Hash           string `json:"hash,omitempty"`
	RevisionNumber int64  `json:"revision,omitempty"`
	RevisionName   string `json:"revisionName,omitempty"`
	// AppliedSourceRevision is the source revision Hash was applied
	// from.
	AppliedSourceRevision string `json:"appliedRevision,omitempty"`
	// FailedRevisionNumber and FailedRevisionName are the role revision
	// the last rollout tried and failed to make healthy, beside the one
	// above that last succeeded (0 and "" when none).
	FailedRevisionNumber int64  `json:"failedRevision,omitempty"`
	FailedRevisionName   string `json:"failedRevisionName,omitempty"`
	Objects              int    `json:"objects"`
	// Result is what the last reconcile did to the role.
	Result  string `json:"result"`
	Message string `json:"message,omitempty"`
	// Workloads are the role's workloads with the identity predicted for
	// the applied template and the one observed after its wave.
	Workloads []Workload `json:"workloads,omitempty"`
}

// Workload is a workload's predicted and observed identity: the workload
// as the plan showed it, and what its controller made.
type Workload struct {
	model.WorkloadSummary
	// Observed is what the controller made, read after the wave; nil
	// when it could not be read.
	Observed *object.Identity `json:"observed,omitempty"`
	// Match says predicted and observed are equal.
	Match bool `json:"match"`
}
