package backoff

import (
	"testing"
	"time"
)

func TestDoubling(t *testing.T) {
	b := Doubling{Base: 10 * time.Second, Max: time.Minute}
	for n, want := range []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute} {
		if got := b.After(n); got != want {
			t.Errorf("After(%d) = %s, want %s", n, got, want)
		}
	}
	if got := b.After(1 << 30); got != time.Minute {
		t.Errorf("After(a billion) = %s, want the maximum", got)
	}
}
