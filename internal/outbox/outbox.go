package outbox

import (
	"context"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/internal/backoff"
)

// Outbox is a queue of posts and the loop that makes them (Run).
type Outbox struct {
	log logrus.FieldLogger
	// Temporary says whether a post's error may pass if tried again.
	Temporary func(error) bool
	// RetryAfter is how long an error asks to wait (0: the backoff's).
	RetryAfter func(error) time.Duration
	// Backoff is the wait after failures of a post in a row.
	Backoff backoff.Doubling

	mu      sync.Mutex
	queue   map[string]*post
	order   []string
	wake    chan struct{}
	flushed chan struct{} // closed and replaced whenever the queue empties
}

// post is one post: what it is (for logs), how to make it, its retries.
type post struct {
	what      string
	do        func(ctx context.Context) error
	attempts  int
	notBefore time.Time
	// gen counts its replacements by a newer post of the same key.
	gen int
}

// MaxQueue bounds the queue: past it, the oldest post is dropped.
const MaxQueue = 1000

// New returns an empty outbox that logs to log; every error is temporary
// until Temporary says otherwise.
func New(log logrus.FieldLogger) *Outbox {
	return &Outbox{log: log, Temporary: func(error) bool { return true }, RetryAfter: func(error) time.Duration { return 0 },
		Backoff: backoff.Doubling{Base: 2 * time.Second, Max: 5 * time.Minute}, queue: map[string]*post{}, wake: make(chan struct{}, 1), flushed: make(chan struct{})}
}

// Add queues do under key, replacing a post of the key not yet made.
func (o *Outbox) Add(key, what string, do func(context.Context) error) {
	o.mu.Lock()
	if old, ok := o.queue[key]; ok {
		old.what, old.do, old.notBefore = what, do, time.Time{} // the newest wins, at once
		old.gen++
	} else {
		if len(o.order) >= MaxQueue {
			drop := o.order[0]
			o.log.WithField("post", o.queue[drop].what).Warn("the outbox is full: the oldest post is dropped")
			delete(o.queue, drop)
			o.order = o.order[1:]
		}
		o.queue[key] = &post{what: what, do: do}
		o.order = append(o.order, key)
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// Run makes the posts until ctx ends.
func (o *Outbox) Run(ctx context.Context) {
	for {
		key, p, wait := o.next()
		if p == nil {
			select {
			case <-ctx.Done():
				return
			case <-o.wake:
			case <-time.After(wait):
			}
			continue
		}
		o.attempt(ctx, key, p)
	}
}

// next returns the first post due, or how long until one is.
func (o *Outbox) next() (string, *post, time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.order) == 0 {
		close(o.flushed)
		o.flushed = make(chan struct{})
		return "", nil, time.Hour
	}
	now, wait := time.Now(), time.Hour
	for _, key := range o.order {
		p := o.queue[key]
		if !now.Before(p.notBefore) {
			return key, p, 0
		}
		wait = min(wait, p.notBefore.Sub(now))
	}
	return "", nil, wait
}

// attempt makes p once and takes it off the queue, or schedules its retry.
func (o *Outbox) attempt(ctx context.Context, key string, p *post) {
	o.mu.Lock()
	what, do, gen := p.what, p.do, p.gen
	o.mu.Unlock()
	callCtx, cancel := context.WithTimeout(ctx, time.Minute)
	err := do(callCtx)
	cancel()
	if ctx.Err() != nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if p.gen != gen {
		return // replaced meanwhile: the newer post runs next
	}
	log := o.log.WithField("post", what)
	switch {
	case err == nil:
		if p.attempts > 0 {
			log.WithField("tries", p.attempts+1).Info("posted after it failed")
		}
		o.remove(key)
	case o.Temporary(err):
		p.attempts++
		wait := o.Backoff.After(p.attempts)
		if ra := o.RetryAfter(err); ra > 0 {
			wait = max(ra, o.Backoff.Base)
		}
		p.notBefore = time.Now().Add(wait)
		if p.attempts == 1 {
			log.WithError(err).WithField("retryIn", wait.Round(time.Second)).Warn("posting failed: trying again later (logged once)")
		}
	default:
		log.WithError(err).Warn("refused: not posted")
		o.remove(key)
	}
}

func (o *Outbox) remove(key string) {
	delete(o.queue, key)
	for i, k := range o.order {
		if k == key {
			o.order = append(o.order[:i], o.order[i+1:]...)
			break
		}
	}
}

// Flushed returns a channel closed once the queue is empty: at once when
// it is.
func (o *Outbox) Flushed() <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.order) == 0 {
		return closed
	}
	return o.flushed
}

// closed is a closed channel.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()
