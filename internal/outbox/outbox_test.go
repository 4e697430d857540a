package outbox

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
)

// TestNewestOfAKeyWins: posts of one key queued before the loop runs are
// made once, the newest; a temporary failure is tried again, a permanent
// one dropped.
func TestNewestOfAKeyWins(t *testing.T) {
	log := logrus.New()
	log.SetOutput(io.Discard)
	o := New(log)
	o.Backoff.Base = time.Millisecond
	o.Temporary = func(err error) bool { return err.Error() != "permanent" }
	var mu sync.Mutex
	var made []string
	record := func(s string) func(context.Context) error {
		return func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			made = append(made, s)
			return nil
		}
	}
	o.Add("a", "a1", record("a1"))
	o.Add("a", "a2", record("a2"))
	tries := 0
	o.Add("b", "b", func(context.Context) error {
		tries++
		if tries < 3 {
			return errors.New("temporary")
		}
		return record("b")(context.Background())
	})
	o.Add("c", "c", func(context.Context) error { return errors.New("permanent") })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go o.Run(ctx)
	select {
	case <-o.Flushed():
	case <-time.After(10 * time.Second):
		t.Fatal("the outbox did not empty")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(made) != 2 || made[0] != "a2" || made[1] != "b" || tries != 3 {
		t.Errorf("made %v after %d tries of b, want [a2 b] after 3", made, tries)
	}
}

// TestFullQueueDropsTheOldest: past MaxQueue posts, the oldest goes.
func TestFullQueueDropsTheOldest(t *testing.T) {
	log := logrus.New()
	log.SetOutput(io.Discard)
	o := New(log)
	for i := range MaxQueue + 3 {
		o.Add(string(rune('a'+i%26))+string(rune(i)), "p", func(context.Context) error { return nil })
	}
	if len(o.order) != MaxQueue || len(o.queue) != MaxQueue {
		t.Errorf("%d queued (%d keys), want %d", len(o.order), len(o.queue), MaxQueue)
	}
}
