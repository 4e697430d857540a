package backoff

import "time"

// Doubling is a doubling wait: Base after the first failure in a row,
// twice as long after each next one, never more than Max.
type Doubling struct {
	Base, Max time.Duration
}

// After returns the wait after n failures in a row (1, 2, …); none
// after 0.
func (b Doubling) After(n int) time.Duration {
	if n < 1 {
		return 0
	}
	d := b.Base
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}
