package fence

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

type claim struct{ d time.Time }

func (c claim) Deadline() time.Time { return c.d }
func (c claim) Holder() string      { return "replica a, app web" }

// TestTransportRefusesAfterTheDeadline sends requests through Transport
// with no claim, a live one, and joined with an ended one: only the last
// is refused, and it never reaches the server.
func TestTransportRefusesAfterTheDeadline(t *testing.T) {
	var reached atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	defer srv.Close()
	c := &http.Client{Transport: Transport(http.DefaultTransport)}
	send := func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPatch, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
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
