package render

import (
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
)

// InventoryEntry is one object an app applied, with where it was applied.
type InventoryEntry struct {
	object.Ref `json:",inline"`
	// Role is the object's role; empty for a prerequisite.
	Role         string `json:"role,omitempty"`
	UpgradeOrder int    `json:"upgradeOrder"`
	Prerequisite bool   `json:"prerequisite,omitempty"`
}

// Inventory returns the plan's objects as inventory entries, in apply
// order.
func (p *Plan) Inventory() []InventoryEntry {
	var out []InventoryEntry
	for _, o := range p.Prerequisites {
		out = append(out, InventoryEntry{Ref: object.RefOf(o), Prerequisite: true})
	}
	for _, w := range p.Waves {
		for _, r := range w.Roles {
			for _, o := range r.Objects {
				out = append(out, InventoryEntry{Ref: object.RefOf(o), Role: r.Name, UpgradeOrder: w.UpgradeOrder})
			}
		}
	}
	return out
}

// pruneSet returns the inventory entries that objs no longer hold, in
// deletion order: the reverse of apply order (highest upgradeOrder first,
// later entries first within one), prerequisites last.
func pruneSet(inventory []InventoryEntry, objs []*unstructured.Unstructured) []InventoryEntry {
	present := make(map[string]bool, len(objs))
	for _, o := range objs {
		present[object.RefOf(o).Key()] = true
	}
	var out []InventoryEntry
	for i := len(inventory) - 1; i >= 0; i-- {
		if e := inventory[i]; !present[e.Key()] {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Prerequisite != b.Prerequisite {
			return !a.Prerequisite
		}
		return a.UpgradeOrder > b.UpgradeOrder
	})
	return out
}
