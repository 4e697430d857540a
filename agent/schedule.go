package agent

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/roleout/roleout/config"
)

// schedule says when the next poll is due.
type schedule interface {
	Next(now time.Time) time.Time
}

// every polls at a fixed interval.
type every time.Duration

func (e every) Next(now time.Time) time.Time { return now.Add(time.Duration(e)) }

// newSchedule returns the schedule of c: its cron expression in its time
// zone, else its interval.
func newSchedule(c config.Schedule) (schedule, error) {
	if c.Cron == "" {
		return every(c.Interval.Duration), nil
	}
	loc, err := time.LoadLocation(c.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("schedule.timeZone: %w", err)
	}
	s, err := config.ParseCron(c.Cron)
	if err != nil {
		return nil, fmt.Errorf("schedule.cron: %w", err)
	}
	return inZone{s, loc}, nil
}

// inZone evaluates a cron schedule in a time zone.
type inZone struct {
	s   cron.Schedule
	loc *time.Location
}

func (z inZone) Next(now time.Time) time.Time { return z.s.Next(now.In(z.loc)) }
