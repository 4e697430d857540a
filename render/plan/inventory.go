package plan

import (
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// pruneSet returns the inventory entries that objs no longer hold, in
// deletion order: the reverse of apply order (highest upgradeOrder first,
// later entries first within one), prerequisites last.
func pruneSet(inventory []model.InventoryEntry, objs []*unstructured.Unstructured) []model.InventoryEntry {
	present := make(map[string]bool, len(objs))
	for _, o := range objs {
		present[object.RefOf(o).Key()] = true
	}
	var out []model.InventoryEntry
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
