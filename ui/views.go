package ui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/roleout/roleout/status"
)

// overviewRow is one app on the overview.
type overviewRow struct {
	Name, Phase, Revision, Message string
	// Owner is the replica that holds the app (sharding.mode dynamic).
	Owner    string
	Drift    int
	Last     *status.Rollout
	Problems int
	// Flight is the wave its rollout is applying now (roleout run only).
	Flight *status.Flight
}

// wave is one wave of an app page: its roles, and what it waits on when
// it waits.
type wave struct {
	UpgradeOrder int
	Roles        []*status.Role
	// Result is the wave's state: the worst of its roles' results.
	Result string
	// Waits says what the wave waits on; "" when it does not.
	Waits string
	// Flight is the wave's progress while the agent applies it
	// (roleout run only).
	Flight *status.Flight
}

// lastAction is what the newest rollout record that applied a role did.
type lastAction struct {
	Action  string
	Started time.Time
}

// lastActions returns, by role, the newest record that applied it: its
// action (update, rollback, retry, heal) and when it started.
func (a *App) lastActions() map[string]lastAction {
	out := map[string]lastAction{}
	for _, r := range a.Rollouts { // newest first
		for _, w := range r.Waves {
			for _, role := range w.Roles {
				if _, ok := out[role.Name]; !ok {
					out[role.Name] = lastAction{Action: role.ActionName(), Started: r.Started.Time}
				}
			}
		}
	}
	return out
}

// lastRollout is the newest record, or nil.
func (a *App) lastRollout() *status.Rollout {
	if len(a.Rollouts) == 0 {
		return nil
	}
	return &a.Rollouts[0]
}

// row returns a's overview row, with its flight when it has one.
func (a *App) row(flights map[string]status.Flight) overviewRow {
	row := overviewRow{Name: a.Name, Phase: a.Report.Phase, Revision: a.Report.SourceRevision, Message: a.Report.Message, Owner: a.Report.Owner,
		Drift: len(a.Report.Drift), Last: a.lastRollout(), Problems: len(a.Problems)}
	if fl, ok := flights[a.Name]; ok {
		row.Flight = &fl
	}
	return row
}

// placeFlight puts fl, the app's wave in flight, on the wave it is
// applying, and returns it when no wave shows it (the prerequisite step,
// or a wave the status branch does not record yet).
func placeFlight(ws []wave, fl status.Flight, ok bool) *status.Flight {
	if !ok {
		return nil
	}
	for i := range ws {
		if fl.Wave > 0 && ws[i].UpgradeOrder == fl.UpgradeOrder {
			ws[i].Flight = &fl
			return nil
		}
	}
	return &fl
}

// waves groups the app's roles by upgradeOrder and says, for each wave
// that waits, on what: the app's gate (paused, suspended, a window), a
// failed earlier wave, or its own failing health gate.
func (a *App) waves() []wave {
	byOrder := map[int]*wave{}
	var orders []int
	for _, r := range a.Report.Roles {
		w, ok := byOrder[r.UpgradeOrder]
		if !ok {
			w = &wave{UpgradeOrder: r.UpgradeOrder}
			byOrder[r.UpgradeOrder] = w
			orders = append(orders, r.UpgradeOrder)
		}
		w.Roles = append(w.Roles, r)
	}
	sort.Ints(orders)
	var out []wave
	var failed string // the first failed wave's reason
	for _, o := range orders {
		w := byOrder[o]
		w.Result = status.RoleUnchanged
		for _, r := range w.Roles {
			w.Result = worse(w.Result, r.Result)
		}
		switch {
		case w.Result == status.RoleFailed:
			var why []string
			for _, r := range w.Roles {
				if r.Result == status.RoleFailed {
					why = append(why, r.Name+": "+oneLine(r.Message))
				}
			}
			w.Waits = "its health gate: " + strings.Join(why, "; ")
			if failed == "" {
				failed = fmt.Sprintf("wave %d failed", o)
			}
		case w.Result == status.RolePending && failed != "":
			w.Waits = "an earlier wave: " + failed
		case w.Result == status.RolePending:
			w.Waits = a.gate()
		}
		out = append(out, *w)
	}
	return out
}

// gate says what holds a pending wave when no earlier wave failed: the
// app's phase and its message.
func (a *App) gate() string {
	switch a.Report.Phase {
	case status.PhasePaused:
		return "the app is paused: " + oneLine(a.Report.Message)
	case status.PhaseSuspended:
		return "the app is suspended: " + oneLine(a.Report.Message)
	case status.PhaseWaiting:
		return "a rollout window: " + oneLine(a.Report.Message)
	case status.PhaseWaitingForDependencies:
		return "the apps it depends on: " + oneLine(a.Report.Message)
	case status.PhaseProgressing:
		return "the waves before it (the rollout is in flight)"
	}
	if a.Report.Message != "" {
		return oneLine(a.Report.Message)
	}
	return "the next rollout"
}

// resultRank orders role results from best to worst.
var resultRank = map[string]int{status.RoleUnchanged: 0, status.RoleHealed: 1, status.RoleApplied: 2, status.RolePending: 3, status.RoleFailed: 4}

func worse(a, b string) string {
	if resultRank[b] > resultRank[a] {
		return b
	}
	return a
}

// historyRow is one rollout record with each role's revision before it.
type historyRow struct {
	status.Rollout
	Duration time.Duration
	Roles    []roleChange
}

// roleChange is a role a rollout applied: its revision before and after.
type roleChange struct {
	Wave         int
	Name, Action string
	From, To     int64
	ToName       string
	// Workloads are the identities predicted and observed (records
	// written before roleout kept them have none); More and MoreMatched
	// count those the record did not keep.
	Workloads         []status.Workload
	More, MoreMatched int
}

// history returns the records, newest first, each with the revision each
// role had before it (from the record before).
func (a *App) history() []historyRow {
	rows := make([]historyRow, len(a.Rollouts))
	last := map[string]int64{}
	for i := len(a.Rollouts) - 1; i >= 0; i-- { // oldest first
		r := a.Rollouts[i]
		row := historyRow{Rollout: r}
		if !r.Finished.IsZero() && !r.Started.IsZero() {
			row.Duration = r.Finished.Sub(r.Started.Time)
		}
		for _, w := range r.Waves {
			for _, rr := range w.Roles {
				row.Roles = append(row.Roles, roleChange{Wave: w.UpgradeOrder, Name: rr.Name, Action: rr.ActionName(), From: last[rr.Name], To: rr.RevisionNumber, ToName: rr.RevisionName, Workloads: rr.Workloads, More: rr.MoreWorkloads, MoreMatched: rr.MoreMatched})
				if w.Result != status.RoleFailed {
					last[rr.Name] = rr.RevisionNumber
				}
			}
		}
		rows[i] = row
	}
	return rows
}

// maxText bounds a message shown whole on a page; past it the rest is
// cut, and the page says how much.
const maxText = 4000

// clip returns s cut to n bytes (at a rune), saying how much was left out.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" … (%d more bytes not shown)", len(s)-cut)
}

// oneLine is s on one line, clipped.
func oneLine(s string) string {
	return clip(strings.Join(strings.Fields(s), " "), maxText)
}
