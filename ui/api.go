package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/roleout/roleout/status"
)

// apiApp is an app in /api/v1/apps: its report, last rollout and what
// could not be read.
type apiApp struct {
	status.Report
	LastRollout *status.Rollout `json:"lastRollout,omitempty"`
	Problems    []string        `json:"problems,omitempty"`
}

func toAPI(a *App) apiApp {
	return apiApp{Report: a.Report, LastRollout: a.lastRollout(), Problems: a.Problems}
}

// apiApps lists the apps the reader may see.
func (s *Server) apiApps(w http.ResponseWriter, _ *http.Request, q *request) {
	out := []apiApp{}
	q.access.prefetch(q.snap.Apps)
	for _, a := range q.snap.Apps {
		if q.visible(a) {
			out = append(out, toAPI(a))
		}
	}
	body := map[string]any{"commit": q.snap.Commit, "error": q.snap.Err, "apps": out}
	if waiting := s.waiting(len(out) > 0); waiting != nil {
		body["previewsWaiting"] = waiting
	}
	writeJSON(w, http.StatusOK, body)
}

// apiApp is one app with its waves.
func (s *Server) apiApp(w http.ResponseWriter, r *http.Request, q *request) {
	a := s.appOf(w, r, q)
	if a == nil {
		return
	}
	type apiWave struct {
		UpgradeOrder int            `json:"upgradeOrder"`
		Result       string         `json:"result"`
		Waits        string         `json:"waits,omitempty"`
		Roles        []*status.Role `json:"roles"`
	}
	var waves []apiWave
	for _, w := range a.waves() {
		waves = append(waves, apiWave{w.UpgradeOrder, w.Result, w.Waits, w.Roles})
	}
	writeJSON(w, http.StatusOK, map[string]any{"app": toAPI(a), "waves": waves, "previews": len(a.Previews)})
}

// apiHistory is an app's rollout records, newest first.
func (s *Server) apiHistory(w http.ResponseWriter, r *http.Request, q *request) {
	a := s.appOf(w, r, q)
	if a == nil {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"app": a.Name, "rollouts": a.Rollouts, "problems": a.Problems})
}

// streamLife bounds one event stream.
const streamLife = 5 * time.Minute

// events streams the store's events as Server-Sent Events: "app" for an
// app the reader may see (only ?app= when given), "branch" when the
// status branch read fails or recovers, "reload" when a reconnect's
// Last-Event-ID is older than the events kept, and, under roleout run,
// "flight" for a wave in flight (status.Flight, or {"app", "landed":
// true} when it ends; at most one per app every flightThrottle, and
// without an id: a reconnect gets the flights as they are then). A
// comment every Heartbeat keeps proxies from closing an idle stream.
func (s *Server) events(w http.ResponseWriter, r *http.Request, q *request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	only := r.URL.Query().Get("app")
	last, _ := strconv.ParseUint(r.Header.Get("Last-Event-ID"), 10, 64)
	if last == 0 {
		last, _ = strconv.ParseUint(r.URL.Query().Get("lastEventId"), 10, 64)
	}
	acc, asked := q.access, time.Now()
	shown := func(app string) bool {
		if only != "" && app != only {
			return false
		}
		if time.Since(asked) > authCacheTTL { // a stream's answers are as fresh as a page's
			acc, asked = &access{s: s, ctx: r.Context(), reader: q.reader, seen: map[string]bool{}}, time.Now()
		}
		a := s.store.Snapshot().App(app) // the apps of a reloaded config too
		return a != nil && acc.can(a)
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 3000\n\n")
	if last == 0 {
		last = s.store.LastID() // a new stream starts now
		fmt.Fprintf(w, "id: %d\nevent: hello\ndata: {}\n\n", last)
	}
	fl.Flush()
	beat := time.NewTicker(s.Heartbeat)
	defer beat.Stop()
	// The stream ends after streamLife: the browser reconnects with
	// Last-Event-ID, and its token and access are checked again.
	end := time.NewTimer(streamLife)
	defer end.Stop()
	flights := newFlightSender(s.Live, shown)
	for {
		evs, wake, complete := s.store.Since(last)
		if !complete {
			last = s.store.LastID()
			fmt.Fprintf(w, "id: %d\nevent: reload\ndata: {}\n\n", last)
			fl.Flush()
			continue
		}
		for _, e := range evs {
			last = e.ID
			kind := "app"
			if e.App == "" {
				kind = "branch"
			} else if !shown(e.App) {
				continue
			}
			data, _ := json.Marshal(e)
			fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.ID, kind, data)
		}
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-end.C:
			return
		case <-wake:
		case <-flights.wake:
			flights.send(w)
			fl.Flush()
		case <-beat.C:
			fmt.Fprint(w, ": ping\n\n")
			fl.Flush()
		}
	}
}

// flightSender sends one stream's "flight" events: the changes since the
// last it sent, no more often than flightThrottle.
type flightSender struct {
	live  Live
	shown func(app string) bool
	sent  map[string]status.Flight
	// wake fires when there may be something to send: the live
	// channel, or the throttle's timer after a send.
	wake <-chan struct{}
	next time.Time
}

func newFlightSender(live Live, shown func(string) bool) *flightSender {
	f := &flightSender{live: live, shown: shown, sent: map[string]status.Flight{}}
	if live != nil {
		f.wake = closed // send the flights as they are now
	}
	return f
}

// closed is a channel that is always ready.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// send writes the flights that changed and arms the next wake: the live
// channel, not before flightThrottle has passed.
func (f *flightSender) send(w io.Writer) {
	if wait := time.Until(f.next); wait > 0 {
		f.wake = after(wait)
		return
	}
	now, changed := f.live.Flights()
	for app, fl := range now {
		if !f.shown(app) || flightEqual(f.sent[app], fl) {
			continue
		}
		f.sent[app] = fl
		data, _ := json.Marshal(fl)
		fmt.Fprintf(w, "event: flight\ndata: %s\n\n", data)
	}
	for app := range f.sent {
		if _, ok := now[app]; !ok {
			delete(f.sent, app)
			data, _ := json.Marshal(map[string]any{"app": app, "landed": true})
			fmt.Fprintf(w, "event: flight\ndata: %s\n\n", data)
		}
	}
	f.wake, f.next = changed, time.Now().Add(flightThrottle)
}

// after is a channel closed after d.
func after(d time.Duration) <-chan struct{} {
	c := make(chan struct{})
	time.AfterFunc(d, func() { close(c) })
	return c
}

func flightEqual(a, b status.Flight) bool {
	return a.Wave == b.Wave && a.Step == b.Step && a.Applied == b.Applied && a.Ready == b.Ready && a.Objects == b.Objects && a.SourceRevision == b.SourceRevision
}
