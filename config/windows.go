package config

import (
	"fmt"
	"sort"
	"time"

	"github.com/robfig/cron/v3"
)

// window is one rollout window: from each time its cron fires, for its
// duration, rollouts are allowed (or denied).
type window struct {
	allow bool
	sched cron.Schedule
	dur   time.Duration
	loc   *time.Location
}

// Windows gate an app's rollouts (apps[].windows). Deny wins over allow;
// with no allow windows, everything not denied is allowed.
type Windows []window

// ParseWindows turns an app's window config into Windows.
func ParseWindows(cfg []Window) (Windows, error) {
	var out Windows
	for i, w := range cfg {
		loc, err := time.LoadLocation(w.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("windows[%d].timeZone: %w", i, err)
		}
		s, err := ParseCron(w.Cron)
		if err != nil {
			return nil, fmt.Errorf("windows[%d].cron: %w", i, err)
		}
		out = append(out, window{allow: w.Kind == "allow", sched: s, dur: w.Duration.Duration, loc: loc})
	}
	return out, nil
}

// firstStart returns w's first firing that holds t, zero when none does:
// its first firing after t - duration, when that is not after t. (Next
// is strictly after its argument, which makes the end exclusive.)
func (w window) firstStart(t time.Time) time.Time {
	start := w.sched.Next(t.In(w.loc).Add(-w.dur))
	if start.IsZero() || start.After(t) {
		return time.Time{}
	}
	return start
}

// activeAt reports whether w is open at t: it fired within the last
// duration (start inclusive, end exclusive). Windows that overlap (a
// cron that fires more often than the window lasts) are open while any
// of them is.
func (w window) activeAt(t time.Time) bool { return !w.firstStart(t).IsZero() }

// maxOverlaps bounds the firings lastStart walks: a window whose cron
// fires that often within its duration (every second for an hour) ends
// no earlier than its last firing found.
const maxOverlaps = 10000

// lastStart returns w's latest firing that holds t (zero when w is not
// open at t): the one whose window stays open longest.
func (w window) lastStart(t time.Time) time.Time {
	start := w.firstStart(t)
	if start.IsZero() {
		return start
	}
	for range maxOverlaps {
		next := w.sched.Next(start)
		if next.IsZero() || next.After(t) {
			break
		}
		start = next
	}
	return start
}

// OpenAt reports whether rollouts are allowed at t.
func (ws Windows) OpenAt(t time.Time) bool {
	anyAllow, allowed := false, false
	for _, w := range ws {
		if !w.activeAt(t) {
			anyAllow = anyAllow || w.allow
			continue
		}
		if !w.allow {
			return false
		}
		anyAllow, allowed = true, true
	}
	return allowed || !anyAllow
}

// NextOpen returns the first time after now at which rollouts are
// allowed, looking a year ahead; zero when there is none.
func (ws Windows) NextOpen(now time.Time) time.Time {
	var candidates []time.Time
	for _, w := range ws {
		t := now
		for range 50 {
			t = w.sched.Next(t.In(w.loc))
			if t.IsZero() || t.After(now.AddDate(1, 0, 0)) {
				break
			}
			if w.allow {
				candidates = append(candidates, t)
			} else {
				candidates = append(candidates, t.Add(w.dur))
			}
		}
		if w.allow {
			continue
		}
		if start := w.lastStart(now); !start.IsZero() {
			candidates = append(candidates, start.Add(w.dur))
		}
	}
	sort.Slice(candidates, func(i, j int) bool { return candidates[i].Before(candidates[j]) })
	for _, c := range candidates {
		if c.After(now) && ws.OpenAt(c) {
			return c
		}
	}
	return time.Time{}
}
