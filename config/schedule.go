package config

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
)

// Cadence says when the next poll is due.
type Cadence interface {
	Next(now time.Time) time.Time
}

// Every polls at a fixed interval.
type Every time.Duration

// Next is now plus the interval.
func (e Every) Next(now time.Time) time.Time { return now.Add(time.Duration(e)) }

// Cadence returns the cadence of c: its cron expression in its time zone,
// else its interval.
func (c Schedule) Cadence() (Cadence, error) {
	if c.Cron == "" {
		return Every(c.Interval.Duration), nil
	}
	loc, err := time.LoadLocation(c.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("schedule.timeZone: %w", err)
	}
	s, err := ParseCron(c.Cron)
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
