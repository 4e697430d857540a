package fence

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A Claim is a hold on an app that ends at Deadline. Deadline must carry
// a monotonic clock reading (time.Now() and what is added to it do), so
// that a wall-clock step does not move it.
type Claim interface {
	// Deadline returns when the claim ends; it may move later while the
	// holder renews it, and never moves once the holder has lost it.
	Deadline() time.Time
	// Holder names the holder and the app, for errors.
	Holder() string
}

// ExpiredError refuses a write made after its claim ended.
type ExpiredError struct {
	Holder   string
	Deadline time.Time
	Late     time.Duration
}

func (e *ExpiredError) Error() string {
	return fmt.Sprintf("%s: the claim ended %s ago (the process was paused or cut off past its lease), "+
		"so another replica may hold the app now: nothing more is written", e.Holder, e.Late.Round(time.Millisecond))
}

// IsExpired reports whether err is, or wraps, an ExpiredError.
func IsExpired(err error) bool {
	var e *ExpiredError
	return errors.As(err, &e)
}

type claimsKey struct{}

// With returns ctx holding c as well as the claims ctx holds: a write in
// it needs every one.
func With(ctx context.Context, c Claim) context.Context {
	if c == nil {
		return ctx
	}
	prev := claims(ctx)
	all := make([]Claim, 0, len(prev)+1)
	all = append(append(all, prev...), c)
	return context.WithValue(ctx, claimsKey{}, all)
}

// Join returns ctx holding the claims of every one of others too: a write
// made for all of them (one status commit of several apps) needs each.
func Join(ctx context.Context, others ...context.Context) context.Context {
	for _, o := range others {
		for _, c := range claims(o) {
			ctx = With(ctx, c)
		}
	}
	return ctx
}

func claims(ctx context.Context) []Claim {
	cs, _ := ctx.Value(claimsKey{}).([]Claim)
	return cs
}

// Check returns an ExpiredError when a claim ctx holds has ended, nil
// when none has or ctx holds none.
func Check(ctx context.Context) error {
	if err := ended(claims(ctx), time.Now()); err != nil {
		return err
	}
	return nil
}

// ended returns an ExpiredError for the first of cs that has ended at
// now, nil when none has.
func ended(cs []Claim, now time.Time) *ExpiredError {
	for _, c := range cs {
		if d := c.Deadline(); !now.Before(d) {
			return &ExpiredError{Holder: c.Holder(), Deadline: d, Late: now.Sub(d)}
		}
	}
	return nil
}
