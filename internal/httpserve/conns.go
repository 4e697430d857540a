package httpserve

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimit is a listener that keeps at most max connections open. At
// the cap, a new connection closes the one idle the longest (a
// keep-alive between requests, or one whose request has not arrived)
// and takes its place; when none is idle (every connection is in a
// request), the new connection is closed as soon as it is accepted. The
// client sees its connection closed and may try again; it does not wait
// in the kernel's queue, and the listener keeps accepting.
type connLimit struct {
	net.Listener
	max int

	mu    sync.Mutex
	conns map[*conn]struct{}
}

// conn is a connection connLimit counts until it is closed.
type conn struct {
	net.Conn
	limit *connLimit
	once  sync.Once
	// idleSince is when it became idle (accepted, or its response
	// done); zero while it serves a request. Guarded by limit.mu.
	idleSince time.Time
}

func newConnLimit(l net.Listener, max int) *connLimit {
	return &connLimit{Listener: l, max: max, conns: map[*conn]struct{}{}}
}

// Accept returns the next connection, closing the longest idle one to
// make room at the cap, or closing the new one when none is idle.
func (l *connLimit) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &conn{Conn: nc, limit: l, idleSince: time.Now()}
		l.mu.Lock()
		var evict *conn
		if len(l.conns) >= l.max {
			if evict = l.longestIdle(); evict == nil {
				l.mu.Unlock()
				_ = nc.Close()
				continue
			}
			delete(l.conns, evict)
		}
		l.conns[c] = struct{}{}
		l.mu.Unlock()
		if evict != nil {
			_ = evict.Close()
		}
		return c, nil
	}
}

// longestIdle is the connection idle the longest, nil when none is.
// The caller holds l.mu.
func (l *connLimit) longestIdle() *conn {
	var oldest *conn
	for c := range l.conns {
		if !c.idleSince.IsZero() && (oldest == nil || c.idleSince.Before(oldest.idleSince)) {
			oldest = c
		}
	}
	return oldest
}

// track is the server's ConnState hook: it marks connections idle or
// busy.
func (l *connLimit) track(nc net.Conn, state http.ConnState) {
	if t, ok := nc.(interface{ NetConn() net.Conn }); ok { // *tls.Conn
		nc = t.NetConn()
	}
	c, ok := nc.(*conn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateActive:
		c.idleSince = time.Time{}
	case http.StateIdle:
		c.idleSince = time.Now()
	}
}

// Close closes the connection and frees its place.
func (c *conn) Close() error {
	c.once.Do(func() {
		c.limit.mu.Lock()
		delete(c.limit.conns, c)
		c.limit.mu.Unlock()
	})
	return c.Conn.Close()
}

// open is how many connections are open.
func (l *connLimit) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}
