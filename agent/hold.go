package agent

import (
	"fmt"
	"slices"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// servesApp reports whether app is in the agent's configuration.
func (a *Agent) servesApp(app string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.ContainsFunc(a.cfg.Apps, func(c config.App) bool { return c.Name == app })
}

// controlChanged makes the next poll, which it starts at once, plan apps
// again even at a revision already reconciled: their suspension changed
// (the status shows Suspended, or the app rolls out again), or a
// reconcile was requested.
func (a *Agent) controlChanged(apps []string) {
	a.mu.Lock()
	for _, app := range apps {
		a.planAgain(app)
	}
	a.mu.Unlock()
	a.Trigger()
}

// suspended reports whether app is suspended (roleout suspend), and says
// by whom and since when.
func (a *Agent) suspended(app string) (bool, string) {
	s := a.control.Get(app)
	return s.Suspended, s.Why()
}

// held returns the phase, status message and commit-message word of an
// app that must apply nothing: paused in its config, or suspended; "" for
// neither.
func (a *Agent) held(app config.App) (phase, message, word string) {
	suspended, why := a.suspended(app.Name)
	switch {
	case app.Paused:
		message = "app is paused: planned, nothing applied"
		if suspended {
			message += "; it is also " + why
		}
		return status.PhasePaused, message, "paused"
	case suspended:
		return status.PhaseSuspended, fmt.Sprintf("app is %s: planned, nothing applied (roleout resume --app %s lifts it)", why, app.Name), "suspended"
	}
	return "", "", ""
}

// suspendedStop returns, between two waves of app's rollout at rev, the
// error that stops it when the app was suspended meanwhile: the rollout
// stops as when superseded, and the next plan records it Suspended. Nil
// when the app is not suspended.
func (a *Agent) suspendedStop(app string, wave int, rev sources.SourceRevision) error {
	suspended, why := a.suspended(app)
	if !suspended {
		return nil
	}
	return &suspendStopError{superseded: SupersededError{Wave: wave, By: rev}, why: why}
}

// suspendStopError stops a rollout between waves because its app was
// suspended. It unwraps to a *SupersededError, so the rollout stops and is
// planned again (and then held) as when a newer commit arrives.
type suspendStopError struct {
	superseded SupersededError
	why        string
}

func (e *suspendStopError) Error() string {
	return fmt.Sprintf("stopped after wave %d: the app was %s", e.superseded.Wave+1, e.why)
}

func (e *suspendStopError) Unwrap() error { return &e.superseded }
