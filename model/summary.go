package model

import (
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/render/schema"
)

// Summary is the plan as `roleout plan --output json` prints it and as
// previews record it (docs/design.md, "The user-facing contract").
type Summary struct {
	Waves         []WaveSummary `json:"waves"`
	Prerequisites []object.Ref  `json:"prerequisites"`
	Prune         []object.Ref  `json:"prune"`
	// Unchecked are the objects whose kind roleout has no schema for, so
	// that it could not check the API server takes them (Plan.Unchecked);
	// absent when every object was checked.
	Unchecked []object.Ref `json:"unchecked,omitempty"`
	// Warnings are the needs a later wave meets (Plan.Late), each a
	// sentence: "wave 3's Deployment/sys/manager (role manager) uses
	// ServiceAccount/sys/manager from wave 4 (role rbac): its pods
	// cannot start until then"; absent when there are none.
	Warnings []string `json:"warnings,omitempty"`
	// Upgrade is Plan.Upgrade: absent unless the plan was made for
	// other versions (roleout plan --kubernetes-version, --controller).
	Upgrade *Upgrade `json:"upgrade,omitempty"`
}

// WaveSummary is one wave of a Summary.
type WaveSummary struct {
	UpgradeOrder int           `json:"upgradeOrder"`
	Roles        []RoleSummary `json:"roles"`
}

// RoleSummary is one role of a Summary. Action is the decision against
// the revision history the plan was made with, as plans name it
// (revision.Decision.PlanAction: install, update, rollback or
// unchanged); Changed is whether a rollout applies the role: the decision
// is a change, unless Summarize was told otherwise (the agent compares
// with what its status records as applied).
type RoleSummary struct {
	Name           string            `json:"name"`
	UpgradeOrder   int               `json:"upgradeOrder"`
	Hash           string            `json:"hash"`
	RevisionNumber int64             `json:"revision"`
	RevisionName   string            `json:"revisionName"`
	Changed        bool              `json:"changed"`
	Action         string            `json:"action"`
	Objects        []object.Ref      `json:"objects"`
	Workloads      []WorkloadSummary `json:"workloads"`
}

// WorkloadSummary is one workload of a RoleSummary. Schema says where
// the schema of the prediction came from: "render" or "cluster" (a
// custom workload's CRD), "builtin" (the Kubernetes types roleout links,
// or the CRD it carries for a custom workload), absent for none.
// Unverified, when present, says why Predicted may not be what the
// controller will compute (Predicted is {} when roleout cannot predict
// the workload at all).
type WorkloadSummary struct {
	Kind         string          `json:"kind"`
	Namespace    string          `json:"namespace,omitempty"`
	Name         string          `json:"name"`
	RestartsPods bool            `json:"restartsPods"`
	Predicted    object.Identity `json:"predicted"`
	Schema       schema.Schema   `json:"schema,omitempty"`
	Unverified   string          `json:"unverified,omitempty"`
}

// Summary is the workload as plans, previews and status show it.
func (w Workload) Summary() WorkloadSummary {
	return WorkloadSummary{
		Kind: w.Ref.Kind, Namespace: w.Ref.Namespace, Name: w.Ref.Name,
		RestartsPods: w.RestartsPods, Predicted: w.Predicted, Schema: w.Schema, Unverified: w.Unverified,
	}
}

// State is the role's change in words: "unchanged", its action, or
// Pending.
func (r RoleSummary) State() string {
	switch {
	case !r.Changed:
		return string(revision.Unchanged)
	case r.Action == string(revision.Unchanged):
		return Pending
	default:
		return r.Action
	}
}

// Summarize returns the plan's summary. changed, when not nil, overrides
// whether a role counts as changed (the agent compares with what is
// applied, not only with the history).
func (p *Plan) Summarize(changed func(*Role) bool) Summary {
	s := Summary{Prerequisites: []object.Ref{}, Prune: []object.Ref{}, Waves: []WaveSummary{}}
	for _, o := range p.Prerequisites {
		s.Prerequisites = append(s.Prerequisites, object.RefOf(o))
	}
	for _, e := range p.Prune {
		s.Prune = append(s.Prune, e.Ref)
	}
	s.Unchecked, s.Upgrade = p.Unchecked, p.Upgrade
	for _, l := range p.Late {
		s.Warnings = append(s.Warnings, l.String())
	}
	for _, w := range p.Waves {
		ws := WaveSummary{UpgradeOrder: w.UpgradeOrder}
		for _, r := range w.Roles {
			d := r.Decision.Revision
			rs := RoleSummary{
				Name: r.Name, UpgradeOrder: r.UpgradeOrder, Hash: d.Hash, RevisionNumber: d.Number,
				RevisionName: d.Name, Changed: r.Decision.Action != revision.Unchanged, Action: string(r.Decision.PlanAction()),
				Objects: []object.Ref{}, Workloads: []WorkloadSummary{},
			}
			if changed != nil {
				rs.Changed = changed(r)
			}
			for _, o := range r.Objects {
				rs.Objects = append(rs.Objects, object.RefOf(o))
			}
			for _, w := range r.Workloads {
				sum := w.Summary()
				sum.RestartsPods = w.RestartsPods && rs.Changed
				rs.Workloads = append(rs.Workloads, sum)
			}
			ws.Roles = append(ws.Roles, rs)
		}
		s.Waves = append(s.Waves, ws)
	}
	return s
}

// Pending is what State says of a role that is changed although its
// decision is unchanged: the history holds its revision, but the status
// does not record it as applied (a paused, window-blocked or failed
// rollout), so the next rollout applies it.
const Pending = "pending"
