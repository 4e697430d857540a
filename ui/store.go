package ui

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/status"
)

// Branch is the status branch as the view reads it.
type Branch interface {
	// Head is the branch's head commit, cheap to ask ("" when none).
	Head(ctx context.Context) (string, error)
	// ReadEach reads each app's folder from one commit.
	ReadEach(ctx context.Context, dirs []string) (map[string]status.Read, error)
}

// eventLog is how many events a reconnecting stream can resume from.
const eventLog = 512

// Event is one change the live stream sends: an app whose files changed
// (App set), or the status branch read failing or recovering.
type Event struct {
	ID      uint64 `json:"id"`
	App     string `json:"app,omitempty"`
	Phase   string `json:"phase,omitempty"`
	Version string `json:"version,omitempty"`
	// Commit is the status branch commit read.
	Commit string `json:"commit,omitempty"`
	Err    string `json:"error,omitempty"`
}

// Owners sets, under sharding.mode dynamic, each report's owner replica
// (and marks Unowned the apps no live replica holds): roleout status's
// reading of the Leases.
type Owners func(ctx context.Context, reports []status.Report) error

// Store holds the newest Snapshot and the events between them. Refresh
// reads the branch again when its head moved; Run does so on a ticker.
type Store struct {
	branch Branch
	name   string
	log    logrus.FieldLogger
	now    func() time.Time
	// Owners, when set, is read at every refresh; an app whose owner
	// changes is an event.
	Owners Owners
	// ownersErr is the last Owners error logged ("" after a success).
	ownersErr string
	// poke asks Run for a refresh before its next tick.
	poke chan struct{}

	mu sync.Mutex
	// apps are the config's (SetApps changes them on a reload).
	apps   []config.App
	snap   *Snapshot
	events []Event // the newest eventLog, oldest first
	// nextID is the next event's id. Ids start at the store's start time
	// in microseconds, so a page that resumes with the id of another
	// process's stream (a restart, another replica) is told to reload.
	nextID uint64
	wake   chan struct{} // closed and replaced on every new event
}

// readTimeout bounds one read of the status branch: a git server that
// hangs does not freeze the view.
const readTimeout = 2 * time.Minute

// NewStore returns a store of apps (the config's) on the status branch
// called name, read through branch.
func NewStore(branch Branch, name string, apps []config.App, log logrus.FieldLogger) *Store {
	return &Store{branch: branch, name: name, apps: apps, log: log, now: time.Now, nextID: uint64(time.Now().UnixMicro()), wake: make(chan struct{}), poke: make(chan struct{}, 1),
		snap: NewSnapshot(name, "", apps, nil, time.Time{}, nil)}
}

// SetApps makes apps (a reloaded config's) the apps the view shows, from
// the next refresh on, which it asks for at once: an app added appears,
// one removed goes, and one whose namespace changed is shown to the
// readers of its new scope only. Until that refresh, an app keeps the
// scope its records gave: it is shown to no more readers meanwhile.
func (s *Store) SetApps(apps []config.App) {
	s.mu.Lock()
	s.apps = apps
	next := NewSnapshot(s.snap.Branch, "", apps, nil, time.Time{}, nil)
	for i, a := range next.Apps { // each new, shared with no reader yet
		if old := s.snap.App(a.Name); old != nil {
			a.recordedScope = old.recordedScope
			a.Scope = a.recordedScope.union(declaredScope(apps[i]))
		}
	}
	s.snap = next
	s.mu.Unlock()
	s.Poke()
}

// Snapshot returns the newest snapshot.
func (s *Store) Snapshot() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap
}

// Run refreshes the snapshot every interval, and when poked, until ctx
// ends.
func (s *Store) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.Refresh(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.poke:
		}
	}
}

// Poke asks Run to refresh now (a status commit landed); pokes while one
// is pending are one.
func (s *Store) Poke() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// Refresh reads the status branch again if its head moved since the last
// read, and records an event for each app whose files changed; then, with
// Owners, it reads the owners and records an event for each app whose
// owner changed. A failed read keeps the last snapshot, says why in it,
// and is an event once.
func (s *Store) Refresh(ctx context.Context) {
	s.read(ctx)
	if s.Owners != nil {
		s.readOwners(ctx)
	}
}

// read reads the status branch when its head moved.
func (s *Store) read(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	head, err := s.branch.Head(ctx)
	s.mu.Lock()
	prev, apps := s.snap, s.apps
	s.mu.Unlock()
	if err == nil && head == prev.Commit && !prev.Read.IsZero() && prev.Err == "" {
		return
	}
	var next *Snapshot
	if err == nil {
		var reads map[string]status.Read
		dirs := make([]string, len(apps))
		for i, a := range apps {
			dirs[i] = a.Name
		}
		if reads, err = s.branch.ReadEach(ctx, dirs); err == nil {
			commit := head
			for _, r := range reads {
				commit = r.Head
				break
			}
			next = NewSnapshot(s.name, commit, apps, reads, s.now(), prev)
		}
	}
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return // stopping
		}
		failed := *prev
		failed.Err = "reading status branch " + s.name + ": " + err.Error()
		if prev.Err == "" {
			s.log.WithError(err).Warn("web view: the status branch could not be read; showing the last read")
		}
		s.publish(prev, &failed, func() []Event {
			if prev.Err == failed.Err {
				return nil
			}
			return []Event{{Err: failed.Err}}
		})
		return
	}
	for _, a := range next.Apps {
		if old := prev.App(a.Name); old != a { // a reused app keeps its owner already
			a.keepOwner(old)
		}
	}
	s.publish(prev, next, func() []Event {
		var evs []Event
		if prev.Err != "" {
			evs = append(evs, Event{Commit: next.Commit})
		}
		for _, a := range next.Apps {
			if old := prev.App(a.Name); old == nil || old.Version != a.Version || old.Report.Phase != a.Report.Phase {
				evs = append(evs, Event{App: a.Name, Phase: a.Report.Phase, Version: a.Version, Commit: next.Commit})
			}
		}
		return evs
	})
}

// readOwners sets each app's owner from Owners, publishing a snapshot
// (and an event per app) when one changed. A failure keeps the owners
// last read and is logged once.
func (s *Store) readOwners(ctx context.Context) {
	snap := s.Snapshot()
	reports := make([]status.Report, len(snap.Apps))
	for i, a := range snap.Apps {
		reports[i] = a.recorded
	}
	if err := s.Owners(ctx, reports); err != nil {
		if ctx.Err() == nil && err.Error() != s.ownersErr {
			s.log.WithError(err).Warn("web view: the owners of the apps could not be read; showing the last read")
		}
		s.ownersErr = err.Error()
		return
	}
	s.ownersErr = ""
	next := *snap
	next.Apps, next.byName = make([]*App, len(snap.Apps)), make(map[string]*App, len(snap.Apps))
	var changed []*App
	for i, a := range snap.Apps {
		next.Apps[i] = a
		if r := reports[i]; r.Owner != a.Report.Owner || r.Phase != a.Report.Phase {
			c := *a
			c.Report = r
			next.Apps[i] = &c
			changed = append(changed, &c)
		}
		next.byName[a.Name] = next.Apps[i]
	}
	if len(changed) == 0 {
		return
	}
	s.publish(snap, &next, func() []Event {
		evs := make([]Event, len(changed))
		for i, a := range changed {
			evs[i] = Event{App: a.Name, Phase: a.Report.Phase, Version: a.Version, Commit: next.Commit}
		}
		return evs
	})
}

// publish makes snap the newest and records the events changes returns,
// unless the newest is no longer from, which snap was made from (SetApps
// replaced it meanwhile: the next refresh reads again).
func (s *Store) publish(from, snap *Snapshot, changes func() []Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap != from {
		return
	}
	s.snap = snap
	evs := changes()
	if len(evs) == 0 {
		return
	}
	for _, e := range evs {
		e.ID = s.nextID
		s.nextID++
		s.events = append(s.events, e)
	}
	if n := len(s.events) - eventLog; n > 0 {
		s.events = append(s.events[:0:0], s.events[n:]...)
	}
	close(s.wake)
	s.wake = make(chan struct{})
}

// Since returns the events after id, oldest first, a channel closed when
// there are newer ones, and whether the events after id are all still
// held (false: some were dropped, and the reader should reload).
func (s *Store) Since(id uint64) ([]Event, <-chan struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Event
	for _, e := range s.events {
		if e.ID > id {
			out = append(out, e)
		}
	}
	last := s.nextID - 1
	var complete bool
	switch {
	case id == 0 || id == last:
		complete = true
	case id > last: // another process's stream
	default: // none of the events after id was dropped
		complete = len(s.events) > 0 && s.events[0].ID <= id+1
	}
	return out, s.wake, complete
}

// LastID is the newest event's id (one less than the first's when none).
func (s *Store) LastID() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nextID - 1
}
