package diff

import (
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// Report is what a merge would change: per step (prerequisites, each role
// in apply order, prune) the objects to create, update or delete.
// `roleout diff --output json` prints it, and previews embed it.
type Report struct {
	App string `json:"app"`
	// SourceRevision is the source revision diffed (main@sha1:…).
	SourceRevision string `json:"revision,omitempty"`
	Offline        bool   `json:"offline"`
	Steps          []Step `json:"steps"`
	Summary        Counts `json:"summary"`
	// Changed says a merge would change something: an object to create,
	// update or delete, or (offline) a role the render adds or removes.
	// roleout diff exits 1 when it is set.
	Changed bool `json:"changed"`
}

// Step is one step of a Report.
type Step struct {
	// Role is the role's name, or PrerequisitesStep or PruneStep.
	Role         string `json:"role"`
	UpgradeOrder int    `json:"upgradeOrder"`
	// Change is set, offline, on the step of a role the last status in
	// git does not have (RoleAdded) or of one it has that the render no
	// longer has (RoleRemoved); either is a change even when no object
	// of the step is.
	Change string `json:"change,omitempty"`
	// Note says, for a person, what the step's objects mean beyond their
	// changes (offline: what the status does not record, that prune is
	// off).
	Note    string   `json:"note,omitempty"`
	Objects []Object `json:"objects"`
	Counts  Counts   `json:"counts"`
	// Workloads are the role's workloads whose pods the change would
	// restart or create, with the identity their controller will give the
	// new template.
	Workloads []Workload `json:"workloads,omitempty"`
}

// Object is one object of a Step: what would change and how (the fields
// of model.ObjectDiff, inline in JSON).
type Object struct {
	model.ObjectDiff
	// NotCompared, set in a diff against the cluster, says why this
	// object was compared with the last status in git instead (a preview
	// reads the cluster only inside the app's namespaces).
	NotCompared string `json:"notCompared,omitempty"`
}

// objects wraps diffs of the cluster.
func objects(diffs []model.ObjectDiff) []Object {
	out := make([]Object, len(diffs))
	for i, d := range diffs {
		out[i] = Object{ObjectDiff: d}
	}
	return out
}

// Workload is a workload whose pods a change restarts (or creates).
type Workload struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Predicted is the identity the controller will give the new template.
	Predicted object.Identity `json:"predicted"`
	// Unverified, when set, says why Predicted may not be it (zero
	// Predicted: no prediction), as in the plan.
	Unverified string `json:"unverified,omitempty"`
	// Current is the identity of the live template, read from the cluster
	// (nil offline, or for a workload that does not exist yet).
	Current *object.Identity `json:"current,omitempty"`
}

// Counts counts the changes of a step or a report.
type Counts struct {
	Create    int `json:"create"`
	Update    int `json:"update"`
	Delete    int `json:"delete"`
	Unchanged int `json:"unchanged"`
}

// Changed reports whether anything would change.
func (c Counts) Changed() bool { return c.Create+c.Update+c.Delete > 0 }

func (c *Counts) add(ch model.Change) {
	switch ch {
	case model.Create, model.CreatePending, model.CreateInPendingNamespace:
		c.Create++
	case model.Update:
		c.Update++
	case model.Delete:
		c.Delete++
	case model.NoChange:
		c.Unchanged++
	}
}

// Step names of a Report that are not roles.
const (
	PrerequisitesStep = "(prerequisites)"
	PruneStep         = "(prune)"
)

// Step changes of a Report (Step.Change).
const (
	RoleAdded   = "added"
	RoleRemoved = "removed"
)

// Notes of an offline Report's steps (Step.Note).
const (
	// PrerequisitesNotRecorded: the status records the prerequisite
	// step's hash, not its objects, so a changed step shows each of them
	// whole.
	PrerequisitesNotRecorded = "the status records only this step's hash, which differs from the render's: every prerequisite is applied again and shown whole"
	// PruneOff: the app does not prune, so objects that left git leave
	// its inventory but stay in the cluster.
	PruneOff = "prune is off: objects that left git leave the inventory but stay in the cluster"
)

// OutsideAppNamespaces is the Object.NotCompared of an object a preview
// did not compare with the cluster: it is cluster-scoped or in a
// namespace that is not the app's.
const OutsideAppNamespaces = "outside the app's namespaces"

// SecretsNotRead is the Object.NotCompared of a Secret in a preview:
// previews never read live Secrets (Scope.ReadsObject).
const SecretsNotRead = "a Secret, which previews never read"

// addStep counts s's changes into s and r and appends s to r.
func (r *Report) addStep(s Step) {
	for _, o := range s.Objects {
		s.Counts.add(o.Change)
		r.Summary.add(o.Change)
	}
	if s.Counts.Changed() || s.Change != "" {
		r.Changed = true
	}
	r.Steps = append(r.Steps, s)
}

// NotCompared counts the objects of r not compared with the cluster.
func (r *Report) NotCompared() int {
	n := 0
	for _, s := range r.Steps {
		for _, o := range s.Objects {
			if o.NotCompared != "" {
				n++
			}
		}
	}
	return n
}

// MarkNotCompared marks every object of r as not compared with the
// cluster, for reason, and returns r.
func (r *Report) MarkNotCompared(reason string) *Report {
	for i := range r.Steps {
		for j := range r.Steps[i].Objects {
			r.Steps[i].Objects[j].NotCompared = reason
		}
	}
	return r
}
