package agent

import (
	"maps"
	"sync"
	"time"

	"github.com/roleout/roleout/status"
)

// flights is what each app's rollout is applying now, between the status
// commits that record whole waves: the web view's progress bars
// (Agent.Flights).
type flights struct {
	mu   sync.Mutex
	apps map[string]status.Flight
	// wake is closed and replaced at every change.
	wake chan struct{}
}

func newFlights() *flights {
	return &flights{apps: map[string]status.Flight{}, wake: make(chan struct{})}
}

// update changes app's flight with change (from the zero Flight when the
// app has none) and wakes the readers.
func (f *flights) update(app string, change func(*status.Flight)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl := f.apps[app]
	change(&fl)
	fl.App = app
	f.apps[app] = fl
	f.wakeLocked()
}

func (f *flights) wakeLocked() {
	close(f.wake)
	f.wake = make(chan struct{})
}

// land ends app's flight: its rollout ended or moved past its waves.
func (f *flights) land(app string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.apps[app]; !ok {
		return
	}
	delete(f.apps, app)
	f.wakeLocked()
}

// touch wakes the readers without a change of flights: a status commit
// landed, which the web view reads at once instead of at its next
// refresh.
func (f *flights) touch() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wakeLocked()
}

// Flights returns, by app, the wave each rollout in flight is applying,
// and a channel closed at the next change or status commit. A copy: the
// caller may keep it.
func (a *Agent) Flights() (map[string]status.Flight, <-chan struct{}) {
	f := a.flights
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.apps), f.wake
}

// takeOff starts the flight of the step at position wave (0: the
// prerequisites) of run's plan, writing objects of roles, and returns the
// progress callbacks of its apply and its health wait.
func (run *appRun) takeOff(wave, upgradeOrder int, roles []string, objects int) (applied, ready func(n, total int)) {
	app, board := run.app.Name, run.a.flights
	board.update(app, func(fl *status.Flight) {
		*fl = status.Flight{SourceRevision: run.steps.revision.String(), Wave: wave, Waves: len(run.steps.plan.Waves),
			UpgradeOrder: upgradeOrder, Roles: roles, Step: status.StepApplying, Objects: objects, Started: time.Now()}
	})
	applied = func(n, _ int) { board.update(app, func(fl *status.Flight) { fl.Applied = n }) }
	ready = func(n, _ int) {
		board.update(app, func(fl *status.Flight) { fl.Step, fl.Applied, fl.Ready = status.StepWaiting, fl.Objects, n })
	}
	return applied, ready
}
