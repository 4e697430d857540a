package model

import (
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
