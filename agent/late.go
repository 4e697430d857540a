package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/roleout/roleout/status"
)

// lateRecords holds, for one pass of RunOnce, the records of apps whose
// rollout applied nothing: a new source revision and the same roles.
// Such a record says nothing the cluster does not already show, so it
// may wait a little and go to the status branch with others (run), in a
// few commits instead of one per app. A crash before then loses only what the next poll finds again:
// nothing to apply. Each held app keeps its claim (Agent.begin) until its
// record is written.
type lateRecords struct {
	mu    sync.Mutex
	calls map[string]func() error
	// since is when the oldest record held was.
	since time.Time
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
	if len(l.calls) == 0 {
		l.calls, l.since = map[string]func() error{}, time.Now()
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

// A pass writes the records it holds once lateBatch of them wait or the
// oldest has waited lateWait, and at its end: an app held waits little
// for its record (and a replica that hands the app over, for its claim),
// and the records of a pass's quick apps still go in together: a write
// of held records is one burst, which the status store's commit group
// puts in as few commits as its batch size allows. lateCheck is how
// often it looks.
const (
	lateBatch = 256
	lateWait  = time.Minute
	lateCheck = time.Second
)

// run writes what is held, by the rule above, until the returned stop is
// called; stop writes the rest and returns the errors of every write.
// end is called with each app once its record is written (or failed).
func (l *lateRecords) run(batch int, wait, check time.Duration, end func(app string)) (stop func() error) {
	done := make(chan struct{})
	var (
		errs []error
		wg   sync.WaitGroup
	)
	wg.Go(func() {
		t := time.NewTicker(check)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if !l.due(batch, wait) {
					continue
				}
				if err := l.flush(end); err != nil {
					errs = append(errs, err)
				}
			}
		}
	})
	return func() error {
		close(done)
		wg.Wait()
		return errors.Join(append(errs, l.flush(end))...)
	}
}

// due reports whether batch records are held, or one has waited wait.
func (l *lateRecords) due(batch int, wait time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.calls) > 0 && (len(l.calls) >= batch || time.Since(l.since) >= wait)
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
