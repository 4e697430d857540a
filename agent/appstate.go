package agent

import (
	"time"

	"github.com/roleout/roleout/status"
)

// appState is what the agent keeps of one app between reconciles, in
// Agent.apps (guarded by Agent.mu).
type appState struct {
	// result is the status the last reconcile left the app in (Results).
	result *status.App
	// done is the source revision this agent last reconciled the app at
	// with success; "" for none: an idle poll at it reads nothing.
	done string
	// replan says the app must be planned again even at a revision it is
	// done at: its settings, its suspension changed, or a reconcile was
	// asked (takeReplan).
	replan bool
	// checked is when the app was last compared in full with its
	// cluster (driftCheckDue); zero before the first poll saw it.
	checked time.Time
}

// state returns app's state, made on first use. The caller holds a.mu.
func (a *Agent) state(app string) *appState {
	s := a.apps[app]
	if s == nil {
		s = &appState{}
		a.apps[app] = s
	}
	return s
}

// settle records st as app's result and, when done is set, the revision
// the app is done at ("" to forget it). The caller holds a.mu.
func (a *Agent) settle(app string, st *status.App, done bool) {
	s := a.state(app)
	s.result = st
	s.done = ""
	if done {
		s.done = st.SourceRevision
	}
}

// planAgain makes the next poll plan app again, even at a revision it is
// done at. The caller holds a.mu.
func (a *Agent) planAgain(app string) {
	s := a.state(app)
	s.done, s.replan = "", true
}
