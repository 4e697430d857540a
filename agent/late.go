package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/roleout/roleout/status"
)

// lateRecords holds, for one pass of RunOnce, the final records that
// are written off the pass's worker slots:
//
//   - records of apps whose rollout applied nothing (a new source
//     revision and the same roles, recordsLate), held until the pass
//     flushes them (hold). Such a record says nothing the cluster does not
//     already show, so it may wait a little and go to the status branch
//     with others, in a few commits instead of one per app; a crash before
//     then loses only what the next poll finds again: nothing to apply;
//   - records of rollouts that succeeded, written at once but in the
//     background (start): the app's worker slot goes to the next app
//     while the record waits for its push, so that the records of apps
//     finishing together share commits, and a push that loses a race to
//     another replica holds up no rollout. A crash before the record lands
//     loses what it loses when the slot waits: the next poll rolls the app
//     out again and finds nothing to apply.
//
// Each such app keeps its claim (Agent.begin) until its record is
// written: the pass's worker hands its end over (owns), and whichever of
// the two finishes last calls it.
type lateRecords struct {
	mu    sync.Mutex
	calls map[string]func() error
	// since is when the oldest record held was.
	since time.Time
	// writing are the apps whose record is being written; handed those
	// whose end the pass's worker handed over (owns); end is run's.
	writing map[string]bool
	handed  map[string]bool
	end     func(app string)
	// started counts the records start writes; errs are their errors.
	started sync.WaitGroup
	errs    []error
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

// start writes app's record in the background, now.
func (l *lateRecords) start(app string, write func() error) {
	l.mu.Lock()
	l.markWritingLocked(app)
	l.mu.Unlock()
	l.started.Go(func() {
		err := write()
		l.mu.Lock()
		if err != nil {
			l.errs = append(l.errs, fmt.Errorf("app %s: %w", app, err))
		}
		l.mu.Unlock()
		l.written(app)
	})
}

// markWritingLocked records that app's record is being written.
func (l *lateRecords) markWritingLocked(app string) {
	if l.writing == nil {
		l.writing = map[string]bool{}
	}
	l.writing[app] = true
}

// owns reports whether app's record is held or being written; if so, the
// pass's worker hands app's end over: it is called once the record is
// written. Otherwise the worker ends the app itself.
func (l *lateRecords) owns(app string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, held := l.calls[app]; !held && !l.writing[app] {
		return false
	}
	if l.handed == nil {
		l.handed = map[string]bool{}
	}
	l.handed[app] = true
	return true
}

// written records that app's record was written (or failed), and ends
// the app when its worker has handed its end over.
func (l *lateRecords) written(app string) {
	l.mu.Lock()
	delete(l.writing, app)
	handed, end := l.handed[app], l.end
	delete(l.handed, app)
	l.mu.Unlock()
	if handed && end != nil {
		end(app)
	}
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
// called; stop writes the rest, waits for what start writes, and returns
// the errors of every write. end is called with each app whose end its
// worker handed over (owns), once its record is written (or failed).
func (l *lateRecords) run(batch int, wait, check time.Duration, end func(app string)) (stop func() error) {
	l.mu.Lock()
	l.end = end
	l.mu.Unlock()
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
				if err := l.flush(); err != nil {
					errs = append(errs, err)
				}
			}
		}
	})
	return func() error {
		close(done)
		wg.Wait()
		errs = append(errs, l.flush())
		l.started.Wait()
		l.mu.Lock()
		defer l.mu.Unlock()
		return errors.Join(append(errs, l.errs...)...)
	}
}

// due reports whether batch records are held, or one has waited wait.
func (l *lateRecords) due(batch int, wait time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.calls) > 0 && (len(l.calls) >= batch || time.Since(l.since) >= wait)
}

// flush writes every held record, all at once so that the status
// branch's commit group puts them in as few commits as it can, and ends
// each app whose end was handed over once its record is written (or
// failed).
func (l *lateRecords) flush() error {
	l.mu.Lock()
	calls := l.calls
	l.calls = nil
	for app := range calls {
		l.markWritingLocked(app)
	}
	l.mu.Unlock()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for app, write := range calls {
		wg.Go(func() {
			defer l.written(app)
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
