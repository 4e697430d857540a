package config

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMaxPollAgeDefaults(t *testing.T) {
	// A Tuesday, so a weekday schedule's weekend gap is in the next week.
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		schedule Schedule
		set      time.Duration
		want     time.Duration
	}{
		{"short interval: at least 5m", Schedule{Interval: metav1.Duration{Duration: time.Minute}}, 0, 5 * time.Minute},
		{"long interval: three intervals", Schedule{Interval: metav1.Duration{Duration: 10 * time.Minute}}, 0, 30 * time.Minute},
		{"no schedule: the default interval", Schedule{}, 0, 5 * time.Minute},
		{"set explicitly", Schedule{Interval: metav1.Duration{Duration: time.Minute}}, 7 * time.Minute, 7 * time.Minute},
		{"cron every 2 minutes", Schedule{Cron: "*/2 * * * *"}, 0, 6 * time.Minute},
		{"daily cron", Schedule{Cron: "0 2 * * *", TimeZone: "UTC"}, 0, 72 * time.Hour},
		{"weekday cron: the weekend gap", Schedule{Cron: "0 9 * * 1-5", TimeZone: "UTC"}, 0, 3 * 72 * time.Hour},
		{"bad cron", Schedule{Cron: "never"}, 0, 5 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &Config{Schedule: tc.schedule, Healthz: Healthz{MaxPollAge: metav1.Duration{Duration: tc.set}}}
			if got := c.MaxPollAge(now); got != tc.want {
				t.Errorf("maxPollAge = %s, want %s", got, tc.want)
			}
		})
	}
}
