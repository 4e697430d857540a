package ui

import (
	"context"
	"io"
	"maps"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/status"
)

// fakeLive is an agent's flights in memory.
type fakeLive struct {
	mu   sync.Mutex
	now  map[string]status.Flight
	wake chan struct{}
}

func newFakeLive() *fakeLive {
	return &fakeLive{now: map[string]status.Flight{}, wake: make(chan struct{})}
}

func (l *fakeLive) Flights() (map[string]status.Flight, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.now), l.wake
}

// set makes fl the app's flight, or lands it (nil).
func (l *fakeLive) set(app string, fl *status.Flight) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if fl == nil {
		delete(l.now, app)
	} else {
		l.now[app] = *fl
	}
	close(l.wake)
	l.wake = make(chan struct{})
}

// TestFlightsOnPagesAndStream: a wave in flight is drawn on the wave it
// applies (app page) and on the app's row (overview), and an event stream
// sends its counts as they move, at most every flightThrottle, then its
// landing. Apps filtered out of the stream send nothing.
func TestFlightsOnPagesAndStream(t *testing.T) {
	log := logrus.New()
	log.SetOutput(io.Discard)
	store := NewStore(fixture(t), "roleout/status", []config.App{{Name: "shop", Namespace: "ns-shop"}, {Name: "nohist", Namespace: "ns-nohist"}}, log)
	store.Refresh(context.Background())
	live := newFakeLive()
	srv := NewServer(store, Open{}, log)
	srv.Live, srv.Heartbeat = live, time.Hour
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close) // after the streams' bodies close

	fl := status.Flight{App: "shop", SourceRevision: "main@sha1:0123456789abcdef", Wave: 3, Waves: 3, UpgradeOrder: 3, Roles: []string{"c"},
		Step: status.StepApplying, Objects: 10, Applied: 4, Started: time.Now()}
	live.set("shop", &fl)
	_, _, body := get(t, hs.URL+"/apps/shop")
	i, j := strings.Index(body, `<section class="wave" id="wave-3">`), strings.Index(body, `data-flight="shop" data-wave="3"`)
	if i < 0 || j < i || !strings.Contains(body, `<progress class="f-applied" max="10" value="4"`) || !strings.Contains(body, "wave 3 of 3 (upgradeOrder 3: c)") {
		t.Errorf("app page with wave 3 in flight:\n%s", body)
	}
	if strings.Contains(body[i:], "waits on the waves before it") {
		t.Error("the wave in flight still says what it waits on")
	}
	if _, _, body := get(t, hs.URL+"/"); !strings.Contains(body, `<div class="flight" data-flight="shop" data-wave="3" data-step="applying">wave 3/3`) {
		t.Errorf("overview with shop in flight:\n%s", body)
	}

	s := openSSE(t, hs.URL+"/events?app=shop", "")
	if _, name, _ := s.next(t); name != "hello" {
		t.Fatalf("first event %q", name)
	}
	if _, name, data := s.next(t); name != "flight" || !strings.Contains(data, `"applied":4`) {
		t.Fatalf("the flight as the stream opened: %s %s", name, data)
	}
	// Changes of shop (and of nohist, which the stream filters out) reach
	// the stream; the last one sent is the newest.
	for n := 5; n <= 10; n++ {
		fl.Applied = n
		live.set("shop", &fl)
		live.set("nohist", &status.Flight{App: "nohist", Wave: 1, Objects: n})
	}
	fl.Step, fl.Ready = status.StepWaiting, 3
	live.set("shop", &fl)
	for {
		id, name, data := s.next(t)
		if name != "flight" || id != "" || strings.Contains(data, "nohist") {
			t.Fatalf("a flight event: id %q %s %s", id, name, data)
		}
		if strings.Contains(data, `"step":"waiting"`) {
			if !strings.Contains(data, `"ready":3`) || !strings.Contains(data, `"applied":10`) {
				t.Errorf("the newest flight: %s", data)
			}
			break
		}
	}
	live.set("shop", nil)
	if _, name, data := s.next(t); name != "flight" || data != `{"app":"shop","landed":true}` {
		t.Errorf("the landing: %s %s", name, data)
	}
}

// TestFlightSenderThrottles: a send within flightThrottle of the last
// writes nothing and wakes again when the throttle ends; then it writes
// only what changed.
func TestFlightSenderThrottles(t *testing.T) {
	live := newFakeLive()
	live.set("a", &status.Flight{App: "a", Wave: 1, Objects: 3})
	live.set("b", &status.Flight{App: "b", Wave: 1, Objects: 3})
	f := newFlightSender(live, func(string) bool { return true })
	var out strings.Builder
	f.send(&out)
	if n := strings.Count(out.String(), "event: flight"); n != 2 {
		t.Fatalf("first send: %d events\n%s", n, out.String())
	}
	live.set("a", &status.Flight{App: "a", Wave: 1, Objects: 3, Applied: 1})
	out.Reset()
	f.send(&out)
	if out.Len() != 0 {
		t.Errorf("a send within the throttle wrote %q", out.String())
	}
	select {
	case <-f.wake:
	case <-time.After(10 * time.Second):
		t.Fatal("the throttle's wake never came")
	}
	f.send(&out)
	if got := out.String(); strings.Count(got, "event: flight") != 1 || !strings.Contains(got, `"app":"a"`) || !strings.Contains(got, `"applied":1`) {
		t.Errorf("after the throttle: %q, want a's change alone", got)
	}
}

// TestOwners: with Owners (sharding.mode dynamic) the overview has an
// owner column, an app no live replica holds shows Unowned with its
// recorded phase on its page, a change of owner is an event, and a new
// read of the branch keeps the owners until they are read again.
func TestOwners(t *testing.T) {
	log := logrus.New()
	log.SetOutput(io.Discard)
	b := fixture(t)
	store := NewStore(b, "roleout/status", []config.App{{Name: "shop", Namespace: "ns-shop"}, {Name: "nohist", Namespace: "ns-nohist"}}, log)
	since := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	holder := map[string]string{"shop": "replica-a", "nohist": ""}
	store.Owners = func(_ context.Context, reps []status.Report) error {
		mu.Lock()
		defer mu.Unlock()
		for i := range reps {
			reps[i].Owner = holder[reps[i].App]
			if reps[i].Owner == "" {
				reps[i].Unowned(since)
			}
		}
		return nil
	}
	store.Refresh(context.Background())
	hs := httptest.NewServer(NewServer(store, Open{}, log))
	t.Cleanup(hs.Close)
	_, _, body := get(t, hs.URL+"/")
	if !strings.Contains(body, "<th>Owner</th>") || !strings.Contains(body, "<code>replica-a</code>") || !strings.Contains(body, "p-Unowned") {
		t.Errorf("overview with owners:\n%s", body)
	}
	_, _, body = get(t, hs.URL+"/apps/nohist")
	if !strings.Contains(body, "no live replica holds it since 2026-12-01 09:00:00Z (recorded phase Failed)") {
		t.Errorf("an app without an owner:\n%s", body)
	}
	last := store.LastID()
	mu.Lock()
	holder["nohist"] = "replica-b"
	mu.Unlock()
	store.Refresh(context.Background())
	evs, _, _ := store.Since(last)
	if len(evs) != 1 || evs[0].App != "nohist" || evs[0].Phase != status.PhaseFailed {
		t.Errorf("events after nohist's new owner: %+v", evs)
	}
	// A new head keeps the owners (no flicker to the recorded phase).
	store.Owners = func(context.Context, []status.Report) error { return context.Canceled }
	st := appStatus("shop")
	st.Phase = status.PhaseSucceeded
	b.set("c9", map[string][]byte{"shop/status.yaml": mustYAML(t, st)})
	store.Refresh(context.Background())
	if a := store.Snapshot().App("shop"); a.Report.Owner != "replica-a" || a.Report.Phase != status.PhaseSucceeded {
		t.Errorf("shop after a new head and a failed owners read: %+v", a.Report)
	}
	if a := store.Snapshot().App("nohist"); a.Report.Owner != "replica-b" {
		t.Errorf("nohist after a new head: %+v", a.Report)
	}
}
