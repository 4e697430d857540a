package apply

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FieldSet is the set of field paths one managedFields entry owns, each
// path the FieldsV1 keys from the root joined by pathSep
// ("f:spec" pathSep "f:replicas").
type FieldSet map[string]bool

// pathSep joins the keys of a FieldSet path: no key can hold it.
const pathSep = "\x00"

// OwnedFields returns the fields manager owns by apply on the main
// resource (not a subresource) in entries, and whether it has such an
// entry at all.
func OwnedFields(entries []metav1.ManagedFieldsEntry, manager string) (FieldSet, bool, error) {
	for _, e := range entries {
		if isApplyOf(e, manager) {
			s, err := fieldSetOf(e)
			return s, true, err
		}
	}
	return nil, false, nil
}

// OwnedTime is the time of manager's apply entry on the main resource;
// zero when it has none.
func OwnedTime(entries []metav1.ManagedFieldsEntry, manager string) metav1.Time {
	for _, e := range entries {
		if isApplyOf(e, manager) && e.Time != nil {
			return *e.Time
		}
	}
	return metav1.Time{}
}

// fieldSetOf returns every path of e's fields, inner nodes included.
func fieldSetOf(e metav1.ManagedFieldsEntry) (FieldSet, error) {
	s := FieldSet{}
	if e.FieldsV1 == nil || len(e.FieldsV1.Raw) == 0 {
		return s, nil
	}
	var tree map[string]any
	if err := json.Unmarshal(e.FieldsV1.Raw, &tree); err != nil {
		return nil, fmt.Errorf("read managedFields of %s: %w", e.Manager, err)
	}
	var walk func(prefix string, t map[string]any)
	walk = func(prefix string, t map[string]any) {
		for k, v := range t {
			if k == "." {
				continue
			}
			p := k
			if prefix != "" {
				p = prefix + pathSep + k
			}
			s[p] = true
			if sub, ok := v.(map[string]any); ok {
				walk(p, sub)
			}
		}
	}
	walk("", tree)
	return s, nil
}

// FieldDrift is what another field manager did to fields roleout owned:
// the fields roleout no longer owns (outermost first, readable:
// spec.template.spec.containers[name=app].image) and the managers that
// own them now. Managers is empty when nobody took them over: they were
// removed.
type FieldDrift struct {
	Fields   []string
	Managers []string
}

// LostFields compares the fields manager owned (was) with its entry in
// the live object's managedFields (now): a field it no longer owns was
// changed or removed by someone else, as server-side apply moves a field
// to whoever changes its value. Fields it newly owns are not drift. The
// zero FieldDrift means none was lost.
func LostFields(was FieldSet, now []metav1.ManagedFieldsEntry, manager string) (FieldDrift, error) {
	cur, _, err := OwnedFields(now, manager)
	if err != nil {
		return FieldDrift{}, err
	}
	lost := FieldSet{}
	for p := range was {
		if !cur[p] {
			lost[p] = true
		}
	}
	if len(lost) == 0 {
		return FieldDrift{}, nil
	}
	var d FieldDrift
	for p := range lost {
		if parent, ok := parentPath(p); ok && lost[parent] {
			continue // reported with its parent
		}
		d.Fields = append(d.Fields, p)
	}
	sort.Strings(d.Fields)
	for _, e := range now {
		if isApplyOf(e, manager) {
			continue
		}
		s, err := fieldSetOf(e)
		if err != nil {
			return FieldDrift{}, err
		}
		for p := range lost {
			if s[p] && !slices.Contains(d.Managers, e.Manager) {
				d.Managers = append(d.Managers, e.Manager)
			}
		}
	}
	sort.Strings(d.Managers)
	for i, p := range d.Fields {
		d.Fields[i] = ReadablePath(p)
	}
	return d, nil
}

// parentPath returns the path p is a child of.
func parentPath(p string) (string, bool) {
	i := strings.LastIndex(p, pathSep)
	if i < 0 {
		return "", false
	}
	return p[:i], true
}

// ReadablePath turns a FieldSet path (f:spec, f:template, …,
// k:{"name":"app"}, f:image) into spec.template.….containers[name=app].image.
func ReadablePath(p string) string {
	var b strings.Builder
	for _, part := range strings.Split(p, pathSep) {
		switch {
		case strings.HasPrefix(part, "f:"):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(part[2:])
		case strings.HasPrefix(part, "k:"):
			var keys map[string]any
			if err := json.Unmarshal([]byte(part[2:]), &keys); err != nil {
				b.WriteString("[" + part[2:] + "]")
				continue
			}
			names := make([]string, 0, len(keys))
			for k := range keys {
				names = append(names, k)
			}
			sort.Strings(names)
			for i, k := range names {
				names[i] = fmt.Sprintf("%s=%v", k, keys[k])
			}
			b.WriteString("[" + strings.Join(names, ",") + "]")
		case strings.HasPrefix(part, "v:"):
			b.WriteString("[=" + part[2:] + "]")
		case strings.HasPrefix(part, "i:"):
			b.WriteString("[" + part[2:] + "]")
		default:
			b.WriteString("/" + part)
		}
	}
	return b.String()
}
