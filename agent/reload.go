package agent

import (
	"fmt"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
)

// Reload makes the running loop serve cfg from its next poll, which it
// starts at once: apps added are reconciled, apps removed are left as
// they are (nothing pruned, their watches stop), and apps whose settings
// changed are planned again even at a revision already reconciled. Only
// apps and defaults can change without a restart; a change elsewhere
// (source, status, clusters, …) is refused with the fields named, and the
// agent goes on with the configuration it has.
func (a *Agent) Reload(cfg *config.Config) (config.Change, error) {
	a.mu.Lock()
	old := a.cfg
	if a.nextCfg != nil {
		old = a.nextCfg
	}
	a.mu.Unlock()
	if fields := config.RestartFields(old, cfg); len(fields) > 0 {
		return config.Change{}, fmt.Errorf("configuration change of %s needs a restart: keeping the running configuration", strings.Join(fields, ", "))
	}
	ch := config.Compare(old, cfg)
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
	ch := config.Compare(a.cfg, next)
	a.cfg = next
	if a.replica != nil {
		a.replica.SetApps(appNames(next))
	}
	for _, name := range append(append([]string(nil), ch.Changed...), ch.Removed...) {
		a.planAgain(name)
	}
	a.mu.Unlock()
	for _, name := range ch.Removed {
		a.drift.Forget(name)
	}
	a.log.WithFields(logrus.Fields{"added": ch.Added, "removed": ch.Removed, "changed": ch.Changed}).Info("configuration reloaded")
}

// takeReplan reports, once, whether app must be planned again because
// its settings changed.
func (a *Agent) takeReplan(app string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.state(app)
	r := s.replan
	s.replan = false
	return r
}
