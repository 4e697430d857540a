package apply

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TakenFields compares applied, the object as roleout applied it, with
// the live object's managedFields (now): a field applied sets that
// another manager owns and roleout's manager does not was taken from
// roleout (kubectl scale, edit, set image, or another apply with force),
// as server-side apply moves a field to whoever changes its value. It
// needs no earlier observation, so drift made while no agent watched is
// found on the first listing. The zero FieldDrift means nothing was taken.
//
// A field another manager removed is owned by nobody and is not found
// here (an object applied fields may have been pruned by the server is
// indistinguishable from one whose field someone removed); LostFields
// finds it while a watch runs.
func TakenFields(applied map[string]any, now []metav1.ManagedFieldsEntry, manager string) (FieldDrift, error) {
	ours := FieldSet{}
	for _, e := range now {
		if e.Manager != manager {
			continue
		}
		s, err := fieldSetOf(e)
		if err != nil {
			return FieldDrift{}, err
		}
		for p := range s {
			ours[p] = true
		}
	}
	taken := FieldSet{}
	var d FieldDrift
	for _, e := range now {
		if e.Manager == manager || e.Subresource == "status" {
			continue
		}
		s, err := fieldSetOf(e)
		if err != nil {
			return FieldDrift{}, err
		}
		inner := map[string]bool{}
		for p := range s {
			if parent, ok := parentPath(p); ok {
				inner[parent] = true
			}
		}
		for p := range s {
			if inner[p] || ours[p] || !setIn(applied, p) {
				continue // a field's parents are not what was taken
			}
			taken[p] = true
			if !slices.Contains(d.Managers, e.Manager) {
				d.Managers = append(d.Managers, e.Manager)
			}
		}
	}
	for p := range taken {
		if parent, ok := parentPath(p); ok && taken[parent] {
			continue // reported with its parent
		}
		d.Fields = append(d.Fields, p)
	}
	sort.Strings(d.Fields)
	sort.Strings(d.Managers)
	for i, p := range d.Fields {
		d.Fields[i] = ReadablePath(p)
	}
	return d, nil
}

// taken reports whether live shows fields of o taken from manager.
func taken(live, o *unstructured.Unstructured, manager string) bool {
	d, err := TakenFields(o.Object, live.GetManagedFields(), manager)
	return err == nil && len(d.Fields) > 0
}

// setIn reports whether obj sets the field at p, a FieldSet path: each
// f: a key of a map, each k: the item of a list whose fields have the
// key's values, each v: an item of a set, each i: an index.
func setIn(obj map[string]any, p string) bool {
	var node any = obj
	for _, part := range strings.Split(p, pathSep) {
		switch {
		case strings.HasPrefix(part, "f:"):
			m, ok := node.(map[string]any)
			if !ok {
				return false
			}
			if node, ok = m[part[2:]]; !ok || node == nil {
				return false
			}
		case strings.HasPrefix(part, "k:"):
			var key map[string]any
			if err := json.Unmarshal([]byte(part[2:]), &key); err != nil {
				return false
			}
			item, ok := listItem(node, func(v any) bool { return hasFields(v, key) })
			if !ok {
				return false
			}
			node = item
		case strings.HasPrefix(part, "v:"):
			var want any
			if err := json.Unmarshal([]byte(part[2:]), &want); err != nil {
				return false
			}
			item, ok := listItem(node, func(v any) bool { return sameValue(v, want) })
			if !ok {
				return false
			}
			node = item
		case strings.HasPrefix(part, "i:"):
			l, ok := node.([]any)
			i, err := strconv.Atoi(part[2:])
			if !ok || err != nil || i < 0 || i >= len(l) {
				return false
			}
			node = l[i]
		default:
			return false
		}
	}
	return true
}

// listItem returns the first item of the list node that match accepts.
func listItem(node any, match func(any) bool) (any, bool) {
	l, ok := node.([]any)
	if !ok {
		return nil, false
	}
	for _, v := range l {
		if match(v) {
			return v, true
		}
	}
	return nil, false
}

// hasFields reports whether item is a map with every field of key at its
// value.
func hasFields(item any, key map[string]any) bool {
	m, ok := item.(map[string]any)
	if !ok {
		return false
	}
	for k, want := range key {
		if v, ok := m[k]; !ok || !sameValue(v, want) {
			return false
		}
	}
	return true
}

// sameValue compares a value of an object (numbers as int64 or float64)
// with one decoded from JSON (numbers as float64).
func sameValue(a, b any) bool {
	return fmt.Sprint(normalNumber(a)) == fmt.Sprint(normalNumber(b))
}

func normalNumber(v any) any {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case int:
		return float64(n)
	case int32:
		return float64(n)
	}
	return v
}
