package config

import "time"

// minMaxPollAge is the least default bound on the time between completed
// polls.
const minMaxPollAge = 5 * time.Minute

// MaxPollAge is how long the agent's loop may go without completing a poll
// before /healthz fails, and how long one poll may run: healthz.maxPollAge
// when set, else three times the schedule's longest wait between polls
// (the interval, or the longest gap between a cron schedule's runs after
// now), at least twice the longest app timeout (one wave's health wait)
// and at least 5m.
func (c *Config) MaxPollAge(now time.Time) time.Duration {
	if d := c.Healthz.MaxPollAge.Duration; d > 0 {
		return d
	}
	wait := c.Schedule.Interval.Duration
	if c.Schedule.Cron != "" {
		sched, err := c.Schedule.Cadence()
		if err != nil {
			return minMaxPollAge // Run refuses the schedule anyway
		}
		wait = longestGap(sched, now)
	} else if wait <= 0 {
		wait = DefaultInterval
	}
	bound := max(3*wait, minMaxPollAge)
	for _, app := range c.Apps {
		// A wave may wait this long for health with nothing else to show.
		bound = max(bound, 2*app.Timeout.Duration)
	}
	return bound
}

// longestGap returns the longest wait between the next 128 runs of sched
// after now: enough to cover a week of a schedule that runs more often
// on some days than others.
func longestGap(sched Cadence, now time.Time) time.Duration {
	var gap time.Duration
	t := now
	for range 128 {
		next := sched.Next(t)
		if !next.After(t) {
			break // robfig/cron: no run in the next five years
		}
		gap = max(gap, next.Sub(t))
		t = next
	}
	return gap
}
