package config

import (
	"encoding/json"
	"reflect"
	"sort"
)

// Change says what a reloaded configuration changed: apps added,
// removed, and changed (any setting), by name.
type Change struct {
	Added, Removed, Changed []string
}

// Empty reports whether nothing changed.
func (c Change) Empty() bool {
	return len(c.Added)+len(c.Removed)+len(c.Changed) == 0
}

// RestartFields names the top-level fields that differ between a and b,
// apps and defaults aside.
func RestartFields(a, b *Config) []string {
	fields := func(c *Config) map[string]json.RawMessage {
		cp := *c
		cp.Apps, cp.Defaults = nil, Defaults{}
		data, _ := json.Marshal(cp)
		var m map[string]json.RawMessage
		_ = json.Unmarshal(data, &m)
		return m
	}
	fa, fb := fields(a), fields(b)
	var out []string
	for k := range fa {
		if string(fa[k]) != string(fb[k]) {
			out = append(out, k)
		}
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Compare compares the apps of two configurations (with defaults: a
// changed default changes every app that uses it).
func Compare(a, b *Config) Change {
	var ch Change
	defaultsChanged := !reflect.DeepEqual(a.Defaults, b.Defaults)
	old := map[string]App{}
	for _, app := range a.Apps {
		old[app.Name] = app
	}
	seen := map[string]bool{}
	for _, app := range b.Apps {
		seen[app.Name] = true
		prev, ok := old[app.Name]
		switch {
		case !ok:
			ch.Added = append(ch.Added, app.Name)
		case defaultsChanged || !reflect.DeepEqual(prev, app):
			ch.Changed = append(ch.Changed, app.Name)
		}
	}
	for _, app := range a.Apps {
		if !seen[app.Name] {
			ch.Removed = append(ch.Removed, app.Name)
		}
	}
	return ch
}
