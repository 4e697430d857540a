package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/roleout/roleout/status"
)

// lateRecords holds, for one pass of RunOnce, the records of apps whose
// rollout applied nothing: a new source revision and the same roles.
// Such a record says nothing the cluster does not already show, so it
// may wait until the pass's apps are done and then go to the status
// branch together (flush), in a few commits instead of one per app. A
// crash before then loses only what the next poll finds again: nothing
// to apply. Each held app keeps its claim (Agent.begin) until its record
// is written.
type lateRecords struct {
	mu    sync.Mutex
	calls map[string]func() error
}

// lateKey is the context key of a pass's lateRecords.
type lateKey struct{}

// withLateRecords returns ctx carrying l.
func withLateRecords(ctx context.Context, l *lateRecords) context.Context {
	return context.WithValue(ctx, lateKey{}, l)
}

// lateRecordsOf returns the lateRecords ctx carries, or nil.
func lateRecordsOf(ctx context.Context) *lateRecords {
	l, _ := ctx.Value(lateKey{}).(*lateRecords)
	return l
}

// hold keeps write, app's record, for flush.
func (l *lateRecords) hold(app string, write func() error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls == nil {
		l.calls = map[string]func() error{}
	}
	l.calls[app] = write
}

// holds reports whether app's record waits for flush.
func (l *lateRecords) holds(app string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.calls[app]
	return ok
}

// flush writes every held record, all at once so that the status
// branch's commit group puts them in as few commits as it can, and calls
// end with each app once its record is written (or failed).
func (l *lateRecords) flush(end func(app string)) error {
	l.mu.Lock()
	calls := l.calls
	l.calls = nil
	l.mu.Unlock()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for app, write := range calls {
		wg.Go(func() {
			defer end(app)
			if err := write(); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("app %s: %w", app, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// recordsLate reports whether the run's final record may wait for the
// pass's flush: the rollout succeeded and applied, pruned and healed
// nothing, and the app was settled at Succeeded before, with no rollback
// to settle.
func (r *appRun) recordsLate(st *status.App, progress bool) bool {
	s := r.steps
	prev := r.prev.Status
	return !progress && s != nil && len(s.waves) == 0 && len(s.pruned) == 0 &&
		st.Phase == status.PhaseSucceeded && len(st.Drift) == 0 && st.Rollback == nil &&
		prev != nil && prev.Phase == status.PhaseSucceeded && prev.Rollback == nil
}
