package agent

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/sirupsen/logrus"
)

// ConfigChange says what a reloaded configuration changed: apps added,
// removed, and changed (any setting), by name.
type ConfigChange struct {
	Added, Removed, Changed []string
}

// Empty reports whether nothing changed.
func (c ConfigChange) Empty() bool {
	return len(c.Added)+len(c.Removed)+len(c.Changed) == 0
}

// Reload makes the running loop serve cfg from its next poll, which it
// starts at once: apps added are reconciled, apps removed are left as
// they are (nothing pruned, their watches stop), and apps whose settings
// changed are planned again even at a revision already reconciled. Only
// apps and defaults can change without a restart; a change elsewhere
// (source, status, clusters, …) is refused with the fields named, and the
// agent goes on with the configuration it has.
func (a *Agent) Reload(cfg *Config) (ConfigChange, error) {
	a.mu.Lock()
	old := a.cfg
	if a.nextCfg != nil {
		old = a.nextCfg
	}
	a.mu.Unlock()
	if fields := restartFields(old, cfg); len(fields) > 0 {
		return ConfigChange{}, fmt.Errorf("configuration change of %s needs a restart: keeping the running configuration", strings.Join(fields, ", "))
	}
	ch := appChanges(old, cfg)
	if ch.Empty() {
		return ch, nil
	}
	a.mu.Lock()
	a.nextCfg = cfg
	a.mu.Unlock()
	a.Trigger()
	return ch, nil
}

// takeReload switches to a configuration Reload accepted, between polls.
func (a *Agent) takeReload() {
	a.mu.Lock()
	next := a.nextCfg
	a.nextCfg = nil
	if next == nil {
		a.mu.Unlock()
		return
	}
	ch := appChanges(a.cfg, next)
	a.cfg = next
	for _, name := range append(append([]string(nil), ch.Changed...), ch.Removed...) {
		delete(a.done, name)
		a.replan[name] = true
	}
	a.mu.Unlock()
	for _, name := range ch.Removed {
		a.drift.forget(name)
	}
	a.log.WithFields(logrus.Fields{"added": ch.Added, "removed": ch.Removed, "changed": ch.Changed}).Info("configuration reloaded")
}

// takeReplan reports, once, whether app must be planned again because
// its settings changed.
func (a *Agent) takeReplan(app string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.replan[app]
	delete(a.replan, app)
	return r
}

// restartFields names the top-level fields that differ between a and b,
// apps and defaults aside.
func restartFields(a, b *Config) []string {
	fields := func(c *Config) map[string]json.RawMessage {
		cp := *c
		cp.Apps, cp.Defaults = nil, DefaultsConfig{}
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

// appChanges compares the apps of two configurations (with defaults: a
// changed default changes every app that uses it).
func appChanges(a, b *Config) ConfigChange {
	var ch ConfigChange
	defaultsChanged := !reflect.DeepEqual(a.Defaults, b.Defaults)
	old := map[string]AppConfig{}
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
