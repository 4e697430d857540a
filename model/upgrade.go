package model

import (
	"fmt"
	"strings"

	"github.com/roleout/roleout/internal/object"
)

// Upgrade is what an upgrade of the cluster's Kubernetes or of a workload
// controller would roll with no change in git (roleout plan
// --kubernetes-version, --controller): each workload of the plan, sorted
// by whether its template identity under the versions planned for
// differs from the one under the versions of the plan it is compared with
// (the cluster's, or with no cluster the ones roleout models).
type Upgrade struct {
	// Kubernetes and Controllers are the versions planned for.
	Kubernetes  string            `json:"kubernetes,omitempty"`
	Controllers map[string]string `json:"controllers,omitempty"`
	// Rolls are the workloads whose identity changes: their controllers
	// replace their pods after the upgrade.
	Rolls []object.Ref `json:"rolls"`
	// Unchanged are the workloads whose identity stays.
	Unchanged []object.Ref `json:"unchanged"`
	// Unknown are the workloads roleout cannot say of, each with why: a
	// version it does not model, or a workload it cannot predict. It
	// never guesses.
	Unknown []UpgradeUnknown `json:"unknown"`
}

// UpgradeUnknown is a workload an Upgrade cannot say of.
type UpgradeUnknown struct {
	object.Ref
	Reason string `json:"reason"`
}

// CompareUpgrade sorts the workloads of next, planned under the versions
// of an upgrade, against base, the same render planned under the
// versions run now.
func CompareUpgrade(base, next *Plan) Upgrade {
	before := map[object.Ref]Workload{}
	for _, r := range base.Roles() {
		for _, w := range r.Workloads {
			before[w.Ref] = w
		}
	}
	u := Upgrade{Rolls: []object.Ref{}, Unchanged: []object.Ref{}, Unknown: []UpgradeUnknown{}}
	for _, r := range next.Roles() {
		for _, w := range r.Workloads {
			b, ok := before[w.Ref]
			switch {
			case !w.Skew.IsZero():
				u.Unknown = append(u.Unknown, UpgradeUnknown{Ref: w.Ref,
					Reason: fmt.Sprintf("roleout does not model %s %s (it models %s): what that version computes is not known", w.Skew.Component, w.Skew.Cluster, w.Skew.Modelled)})
			case w.Predicted.IsZero() || !ok || b.Predicted.IsZero():
				reason := "not predicted"
				if w.Unverified != "" {
					reason += ": " + w.Unverified
				}
				u.Unknown = append(u.Unknown, UpgradeUnknown{Ref: w.Ref, Reason: reason})
			case !b.Skew.IsZero():
				u.Unknown = append(u.Unknown, UpgradeUnknown{Ref: w.Ref,
					Reason: fmt.Sprintf("the cluster runs %s %s, which roleout does not model (it models %s): what it computes now is not known", b.Skew.Component, b.Skew.Cluster, b.Skew.Modelled)})
			case b.Matches != "" && w.Matches != "":
				// What the controller finds the existing revision by
				// decides, not the name it would give a new one; one
				// that compares templates semantically finds it for the
				// same template, which an upgrade plan has on both sides.
				if b.Matches == w.Matches || strings.HasPrefix(w.Matches, "template:") {
					u.Unchanged = append(u.Unchanged, w.Ref)
				} else {
					u.Rolls = append(u.Rolls, w.Ref)
				}
			case b.Predicted.Equal(w.Predicted):
				u.Unchanged = append(u.Unchanged, w.Ref)
			default:
				u.Rolls = append(u.Rolls, w.Ref)
			}
		}
	}
	return u
}
