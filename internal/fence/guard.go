package fence

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// A Guard fences the requests of one HTTP client. Its Transport checks a
// request's claims (Check) as the request enters the client's transport;
// that leaves a window. A request that passed the check may still wait in
// the process before its bytes leave: for a free connection, for an
// HTTP/2 connection's write lock behind other streams, for flow control.
// A process paused in that window (SIGSTOP, a long GC pause, a frozen
// VM) sends it when it resumes, after the claim ended: with waves of
// twenty objects, TestFaultPausedReplica caught such writes in one pause
// of eight with the check alone.
//
// So the Guard also registers each request's claims from its check until
// its round trip returns, and the connections its Dial makes check every
// registered claim before each write: when one has ended, the connection
// is closed instead, and every request queued on it fails. What is left
// is the time between that check and the write system call, not the time
// a request waits in the client. A request whose claims all hold may fail
// with the connection as well; it is retried as any failed request is.
type Guard struct {
	mu       sync.Mutex
	next     uint64
	inflight map[uint64][]Claim
}

// NewGuard returns a Guard with no request in flight.
func NewGuard() *Guard { return &Guard{inflight: map[uint64][]Claim{}} }

// Transport returns rt with each request checked (Check) and its claims
// registered until its round trip returns: the wrapper
// rest.Config.Wrap takes.
func (g *Guard) Transport(rt http.RoundTripper) http.RoundTripper {
	return guardedTransport{g: g, base: rt}
}

// Dial returns dial with each connection it makes checking, before each
// write, the claims of the requests in flight (Transport): a
// rest.Config's Dial, an http.Transport's DialContext.
func (g *Guard) Dial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &guardedConn{Conn: c, g: g}, nil
	}
}

// enter registers cs; the returned func removes them.
func (g *Guard) enter(cs []Claim) func() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.next++
	id := g.next
	g.inflight[id] = cs
	return func() {
		g.mu.Lock()
		delete(g.inflight, id)
		g.mu.Unlock()
	}
}

// check returns an ExpiredError when a claim of a request in flight has
// ended at now.
func (g *Guard) check(now time.Time) *ExpiredError {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, cs := range g.inflight {
		if err := ended(cs, now); err != nil {
			return err
		}
	}
	return nil
}

type guardedTransport struct {
	g    *Guard
	base http.RoundTripper
}

func (t guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := Check(req.Context()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	if cs := claims(req.Context()); len(cs) > 0 {
		defer t.g.enter(cs)()
	}
	return t.base.RoundTrip(req)
}

// guardedConn is a connection that checks its Guard before each write.
// Once refused, its reads and writes fail with the refusal, which is what
// the requests on it report.
type guardedConn struct {
	net.Conn
	g       *Guard
	refused atomic.Pointer[ExpiredError]
}

func (c *guardedConn) Write(p []byte) (int, error) {
	if err := c.refused.Load(); err != nil {
		return 0, err
	}
	if err := c.g.check(time.Now()); err != nil {
		c.refused.CompareAndSwap(nil, err)
		c.Conn.Close()
		return 0, err
	}
	return c.Conn.Write(p)
}

func (c *guardedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if refused := c.refused.Load(); err != nil && refused != nil {
		return n, refused
	}
	return n, err
}
