package httpserve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// serve serves h on a loopback listener with o until the test ends and
// returns its address and connection limit.
func serve(t *testing.T, h http.Handler, o Options) (string, *connLimit) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	o = o.withDefaults()
	limit := newConnLimit(l, o.MaxConns)
	go func() { defer close(done); _ = serveOn(ctx, limit, h, o) }()
	t.Cleanup(func() { cancel(); <-done })
	return l.Addr().String(), limit
}

// hello answers "ok" to GET and reads a POST's body.
var hello = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		if _, err := io.ReadAll(r.Body); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, "too big", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	_, _ = io.WriteString(w, "ok\n")
})

// idleConn sends one GET on a new connection, reads its response and
// leaves the connection open (keep-alive); closed is closed when the
// server closes it.
func idleConn(t *testing.T, addr string) (net.Conn, <-chan struct{}) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return c, untilClosed(c, br)
}

// slowBody starts a POST of n bytes and sends one a second; the channel
// is closed when the server closes the connection.
func slowBody(t *testing.T, addr, path string, n int) <-chan struct{} {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", path, n); err != nil {
		t.Fatal(err)
	}
	closed := untilClosed(c, bufio.NewReader(c))
	go func() {
		for {
			select {
			case <-closed:
				return
			case <-time.After(time.Second):
			}
			if _, err := c.Write([]byte("x")); err != nil {
				return
			}
		}
	}()
	return closed
}

// untilClosed reads r, of c, to its end in the background, then closes
// c and the channel.
func untilClosed(c net.Conn, r io.Reader) <-chan struct{} {
	closed := make(chan struct{})
	go func() { defer close(closed); _, _ = io.Copy(io.Discard, r); _ = c.Close() }()
	return closed
}

// openFDs counts the process's open file descriptors.
func openFDs(t *testing.T, pid string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/" + pid + "/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return len(fds)
}

// probe GETs url on a new connection every 100 ms until stop is closed
// and reports each failure.
func probe(t *testing.T, url string, stop <-chan struct{}, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			resp, err := client.Get(url)
			if err != nil {
				t.Errorf("GET %s while the server is flooded: %v", url, err)
				continue
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s while the server is flooded: %d", url, resp.StatusCode)
			}
		}
	}()
}

// waitClosed waits until every channel is closed, or within; it returns
// how many are still open.
func waitClosed(chans []<-chan struct{}, within time.Duration) int {
	deadline := time.After(within)
	for i, c := range chans {
		select {
		case <-c:
		case <-deadline:
			n := 0
			for _, c := range chans[i:] {
				select {
				case <-c:
				default:
					n++
				}
			}
			return n
		}
	}
	return 0
}

// TestFloodIsClosed opens 300 idle keep-alive connections and 50 slow
// bodies on a server capped at 100 connections and 10 bodies: /healthz
// answers throughout, every connection is closed within the timeouts
// (or before, to make room), and the process's file descriptors come
// back to where they were.
func TestFloodIsClosed(t *testing.T) {
	before := openFDs(t, "self")
	o := Options{ReadTimeout: time.Second, IdleTimeout: time.Second, MaxConns: 100, MaxBodies: 10}
	addr, limit := serve(t, hello, o)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	probe(t, "http://"+addr+"/healthz", stop, &wg)
	var closed []<-chan struct{}
	for range 300 {
		_, c := idleConn(t, addr)
		closed = append(closed, c)
	}
	for range 50 {
		closed = append(closed, slowBody(t, addr, "/hook", 1000))
	}
	if open := waitClosed(closed, 30*time.Second); open > 0 {
		t.Errorf("%d of %d connections still open 30 s after the last was opened (read and idle timeouts 1 s)", open, len(closed))
	}
	close(stop)
	wg.Wait()
	for deadline := time.Now().Add(5 * time.Second); limit.open() > 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
	}
	if n := limit.open(); n > 0 {
		t.Errorf("the server counts %d connections open after all were closed", n)
	}
	var after int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if after = openFDs(t, "self"); after <= before+2 { // the listener, and a poller
			break
		}
	}
	if after > before+2 {
		t.Errorf("open file descriptors: %d before, %d after", before, after)
	}
}

// TestCapClosesTheLongestIdle fills a server of 5 connections with idle
// ones: a new request closes the oldest and is served. With every place
// taken by a request in progress, a new connection is closed at once.
func TestCapClosesTheLongestIdle(t *testing.T) {
	o := Options{ReadTimeout: time.Minute, IdleTimeout: time.Minute, MaxConns: 5, MaxBodies: 10}
	addr, _ := serve(t, hello, o)
	var closed []<-chan struct{}
	for range 5 {
		_, c := idleConn(t, addr)
		closed = append(closed, c)
		time.Sleep(10 * time.Millisecond) // an order of idleness
	}
	_, sixth := idleConn(t, addr)
	select {
	case <-closed[0]:
	case <-time.After(5 * time.Second):
		t.Fatal("the longest idle connection was not closed for a new one")
	}
	for i, c := range closed[1:] {
		select {
		case <-c:
			t.Errorf("idle connection %d was closed too", i+2)
		default:
		}
	}
	// Five bodies in progress: every place is busy (they close the
	// idle ones).
	_ = sixth
	var busy []<-chan struct{}
	for range 5 {
		busy = append(busy, slowBody(t, addr, "/", 1000))
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a connection past the cap with every place busy: read %d, %v; want it closed at once", n, err)
	}
	for _, b := range busy {
		select {
		case <-b:
			t.Error("a request in progress was closed to make room")
		default:
		}
	}
}

// TestBodyBounds: a body over MaxBodyBytes is refused (413, from its
// length or while it is read), and past MaxBodies at once 503.
func TestBodyBounds(t *testing.T) {
	o := Options{MaxBodyBytes: 100, MaxBodies: 1}
	addr, _ := serve(t, hello, o)
	post := func(body io.Reader, length int64) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/hook", body)
		req.ContentLength = length
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode
	}
	for name, c := range map[string]struct {
		body   string
		length int64
		want   int
	}{
		"small":                 {"hello", 5, 200},
		"over, by its length":   {strings.Repeat("x", 101), 101, 413},
		"over, of unknown size": {strings.Repeat("x", 1000), -1, 413},
	} {
		t.Run(name, func(t *testing.T) {
			if got := post(strings.NewReader(c.body), c.length); got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
		})
	}
	slow := slowBody(t, addr, "/hook", 50)
	time.Sleep(200 * time.Millisecond)
	if got := post(strings.NewReader("x"), 1); got != http.StatusServiceUnavailable {
		t.Errorf("a second body while one is read: %d, want 503", got)
	}
	select {
	case <-slow:
		t.Error("the body in progress was closed")
	default:
	}
}
