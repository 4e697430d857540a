package fence

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type claim struct{ d time.Time }

func (c claim) Deadline() time.Time { return c.d }
func (c claim) Holder() string      { return "replica a, app web" }

// guarded returns a server that counts the requests it gets, and a
// client fenced by a Guard (its Transport and its Dial) that sends one
// request in ctx.
func guarded(t *testing.T) (reached *atomic.Int32, send func(ctx context.Context) error) {
	reached = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	t.Cleanup(srv.Close)
	g := NewGuard()
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.DialContext = g.Dial(base.DialContext)
	c := &http.Client{Transport: g.Transport(base)}
	return reached, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPatch, srv.URL, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
}

// TestTransportRefusesAfterTheDeadline sends requests through a Guard
// with no claim, a live one, and joined with an ended one: only the last
// is refused, and it never reaches the server.
func TestTransportRefusesAfterTheDeadline(t *testing.T) {
	reached, send := guarded(t)
	live := With(context.Background(), claim{time.Now().Add(time.Minute)})
	if err := send(context.Background()); err != nil {
		t.Fatalf("no claim: %v", err)
	}
	if err := send(live); err != nil {
		t.Fatalf("a live claim: %v", err)
	}
	ended := With(context.Background(), claim{time.Now().Add(-time.Second)})
	err := send(Join(live, ended))
	if !IsExpired(err) {
		t.Fatalf("joined with an ended claim: %v, want an ExpiredError", err)
	}
	if n := reached.Load(); n != 2 {
		t.Errorf("the server got %d requests, want 2 (the refused one never leaves)", n)
	}
	if err := Check(live); err != nil {
		t.Errorf("Join changed the context it joined: %v", err)
	}
}

// pausedClaim is live when Check reads it and has ended at every later
// read: a request checked, then held in the process past the claim's end
// before its bytes leave, as a pause would hold it.
type pausedClaim struct{ reads atomic.Int32 }

func (c *pausedClaim) Deadline() time.Time {
	if c.reads.Add(1) == 1 {
		return time.Now().Add(time.Minute)
	}
	return time.Now().Add(-time.Second)
}
func (c *pausedClaim) Holder() string { return "replica a, app web" }

// TestGuardClosesTheWindowAfterTheCheck: a request whose claim held at
// Check and ended before its bytes were written is refused by the
// connection, and never reaches the server; the next request, on a new
// connection, is sent.
func TestGuardClosesTheWindowAfterTheCheck(t *testing.T) {
	reached, send := guarded(t)
	err := send(With(context.Background(), &pausedClaim{}))
	if !IsExpired(err) {
		t.Fatalf("a claim that ended after its check: %v, want an ExpiredError", err)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the server got %d requests, want none", n)
	}
	if err := send(With(context.Background(), claim{time.Now().Add(time.Minute)})); err != nil {
		t.Fatalf("a live claim after the refused one: %v", err)
	}
	if n := reached.Load(); n != 1 {
		t.Errorf("the server got %d requests, want 1", n)
	}
}
