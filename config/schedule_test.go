package config

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSchedule(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 7, 30, 0, time.UTC)
	cases := []struct {
		name string
		cfg  Schedule
		want time.Time
	}{
		{"interval", Schedule{Interval: metav1.Duration{Duration: time.Minute}}, now.Add(time.Minute)},
		{"cron", Schedule{Cron: "*/10 * * * *"}, time.Date(2026, 11, 29, 10, 10, 0, 0, time.UTC)},
		{"cron in a time zone", Schedule{Cron: "0 2 * * *", TimeZone: "Europe/Berlin"}, time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)},
		{"cron with a seconds field", Schedule{Cron: "*/20 * * * * *"}, time.Date(2026, 11, 29, 10, 7, 40, 0, time.UTC)},
		{"cron descriptor", Schedule{Cron: "@hourly"}, time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.cfg.Cadence()
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Next(now); !got.Equal(tc.want) {
				t.Errorf("Next = %s, want %s", got.UTC(), tc.want)
			}
		})
	}
}
