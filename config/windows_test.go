package config

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func mustWindows(t *testing.T, cfg ...Window) Windows {
	t.Helper()
	ws, err := ParseWindows(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func hours(h float64) metav1.Duration {
	return metav1.Duration{Duration: time.Duration(h * float64(time.Hour))}
}

func TestWindows(t *testing.T) {
	nightly := Window{Kind: "allow", Cron: "0 2 * * *", Duration: hours(2), TimeZone: "UTC"}
	friday := Window{Kind: "deny", Cron: "0 0 * * 5", Duration: hours(24), TimeZone: "UTC"}
	berlin := Window{Kind: "allow", Cron: "0 9 * * *", Duration: hours(1), TimeZone: "Europe/Berlin"}
	// Windows that overlap: one opens every minute and lasts two, one
	// every hour and lasts two hours.
	minutely := Window{Kind: "allow", Cron: "* * * * *", Duration: metav1.Duration{Duration: 2 * time.Minute}, TimeZone: "UTC"}
	hourlyDeny := Window{Kind: "deny", Cron: "0 * * * *", Duration: hours(2), TimeZone: "UTC"}
	nineToFive := Window{Kind: "deny", Cron: "0 9-16 * * *", Duration: hours(1), TimeZone: "UTC"}
	at := func(s string) time.Time {
		t.Helper()
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	cases := []struct {
		name     string
		windows  []Window
		now      string
		open     bool
		nextOpen string
	}{
		{"no windows: always open", nil, "2026-11-26T12:00:00Z", true, ""},
		{"inside the nightly window", []Window{nightly}, "2026-11-26T03:00:00Z", true, ""},
		{"at the window's start", []Window{nightly}, "2026-11-26T02:00:00Z", true, ""},
		{"at the window's end", []Window{nightly}, "2026-11-26T04:00:00Z", false, "2026-11-27T02:00:00Z"},
		{"outside: next opens at 02:00", []Window{nightly}, "2026-11-26T12:00:00Z", false, "2026-11-27T02:00:00Z"},
		{"deny wins over allow", []Window{nightly, friday}, "2026-11-27T03:00:00Z", false, "2026-11-28T02:00:00Z"},
		{"only deny: open outside it", []Window{friday}, "2026-11-26T12:00:00Z", true, ""},
		{"only deny: opens when it ends", []Window{friday}, "2026-11-27T12:00:00Z", false, "2026-11-28T00:00:00Z"},
		{"time zone", []Window{berlin}, "2026-11-26T08:30:00Z", true, ""},
		{"time zone, before", []Window{berlin}, "2026-11-26T07:30:00Z", false, "2026-11-26T08:00:00Z"},
		{"overlapping: on a minute", []Window{minutely}, "2026-11-26T23:33:00Z", true, ""},
		{"overlapping: just after a minute", []Window{minutely}, "2026-11-26T23:33:00.003Z", true, ""},
		{"overlapping: in a minute", []Window{minutely}, "2026-11-26T23:33:40Z", true, ""},
		{"overlapping deny: always closed", []Window{hourlyDeny}, "2026-11-26T23:00:00.5Z", false, ""},
		{"back-to-back deny: ends after the last", []Window{nineToFive}, "2026-11-26T09:00:00Z", false, "2026-11-26T17:00:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := mustWindows(t, tc.windows...)
			now := at(tc.now)
			if got := ws.OpenAt(now); got != tc.open {
				t.Fatalf("open at %s = %v, want %v", tc.now, got, tc.open)
			}
			if tc.open {
				return
			}
			want := time.Time{}
			if tc.nextOpen != "" {
				want = at(tc.nextOpen)
			}
			if got := ws.NextOpen(now); !got.Equal(want) {
				t.Errorf("next open after %s = %s, want %s", tc.now, got.UTC().Format(time.RFC3339), tc.nextOpen)
			}
		})
	}
}
