package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestHTTPBoundsCloseIdleAndSlowConnections runs the agent with its HTTP
// endpoint and /hook, and opens 1,000 connections that send one request
// and then stay idle (keep-alive) and 100 POST /hook whose bodies
// arrive a byte a second. /healthz answers throughout on new
// connections; every one of the 1,100 is closed by the agent within its
// timeouts (idle 15 s, a request 20 s; or at once, past its caps); and
// the agent's open file descriptors come back to what they were.
func TestHTTPBoundsCloseIdleAndSlowConnections(t *testing.T) {
	t.Parallel()
	const idle, slow = 1000, 100
	raiseOpenFiles(t, 4*(idle+slow))
	const ns = "http-bounds"
	_, repo, config := faultSetup(t, ns)
	secret := filepath.Join(t.TempDir(), "hook-secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddress(t)
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.NewReplacer("schedule: {interval: 1s}", "schedule: {interval: 1h}",
		`http: {address: "-"}`, fmt.Sprintf("http: {address: %q, hookSecretFile: %q}", addr, secret)).Replace(string(data)))
	if err := os.WriteFile(config, data, 0o644); err != nil {
		t.Fatal(err)
	}
	logs, agent := startAgent(t, config)
	first, _ := repo.Rev("refs/heads/main")
	if !waitForStatus(t, repo, ns, time.Minute, succeededAt(first)) {
		t.Fatalf("the first poll did not roll out:\n%s", logs.String())
	}
	pid := strconv.Itoa(agent.Process.Pid)
	baseline := steadyFDs(t, pid)

	stop := make(chan struct{})
	var probes, failures atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			probes.Add(1)
			resp, err := client.Get("http://" + addr + "/healthz")
			if err != nil {
				failures.Add(1)
				t.Errorf("GET /healthz during the flood: %v", err)
				continue
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				failures.Add(1)
				t.Errorf("GET /healthz during the flood: %d", resp.StatusCode)
			}
		}
	}()
	var closed []<-chan struct{}
	for range idle {
		closed = append(closed, keptAlive(t, addr))
	}
	for range slow {
		closed = append(closed, slowHook(t, addr))
	}
	opened := time.Now()
	// The bounds are 15 s idle and 20 s a request: a minute is generous.
	deadline := make(chan struct{})
	time.AfterFunc(time.Minute, func() { close(deadline) })
	open := 0
	for _, c := range closed {
		select {
		case <-c:
		case <-deadline:
			open++
		}
	}
	close(stop)
	wg.Wait()
	if open > 0 {
		t.Fatalf("%d of %d connections still open %s after they were opened", open, len(closed), time.Since(opened).Round(time.Second))
	}
	if probes.Load() < 10 || failures.Load() > 0 {
		t.Errorf("/healthz: %d of %d probes failed", failures.Load(), probes.Load())
	}
	var now int
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if now = openFDs(t, pid); now <= baseline {
			break
		}
	}
	if now > baseline {
		t.Errorf("the agent has %d file descriptors open after the flood, %d before", now, baseline)
	}
}

// raiseOpenFiles raises this process's soft limit of open files to at
// least n (up to the hard limit).
func raiseOpenFiles(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur >= n {
		return
	}
	lim.Cur = min(n, lim.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < n {
		t.Skipf("cannot raise the open files limit to %d (hard limit %d): %v", n, lim.Max, err)
	}
}

// openFDs counts the open file descriptors of process pid.
func openFDs(t *testing.T, pid string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/" + pid + "/fd")
	if err != nil {
		t.Skipf("no /proc/%s/fd: %v", pid, err)
	}
	return len(fds)
}

// steadyFDs waits until pid's count of open file descriptors holds for a
// second, and returns it.
func steadyFDs(t *testing.T, pid string) int {
	t.Helper()
	last := openFDs(t, pid)
	for range 30 {
		time.Sleep(time.Second)
		n := openFDs(t, pid)
		if n == last {
			return n
		}
		last = n
	}
	return last
}

// keptAlive sends GET /healthz on a new connection, reads the answer and
// leaves the connection open; the channel is closed when the agent
// closes it (and the test's end of it is closed then).
func keptAlive(t *testing.T, addr string) <-chan struct{} {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: "+addr+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		// Closed at once: past the connection cap with none idle.
		return readToEnd(c, br)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return readToEnd(c, br)
}

// slowHook starts a POST /hook of 100,000 bytes and sends one a second;
// the channel is closed when the agent closes the connection.
func slowHook(t *testing.T, addr string) <-chan struct{} {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := fmt.Fprintf(c, "POST /hook HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", addr); err != nil {
		t.Fatal(err)
	}
	closed := readToEnd(c, bufio.NewReader(c))
	go func() {
		for {
			select {
			case <-closed:
				return
			case <-time.After(time.Second):
			}
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	return closed
}

// readToEnd reads r, of c, in the background until the peer closes c,
// then closes c and the channel.
func readToEnd(c net.Conn, r io.Reader) <-chan struct{} {
	closed := make(chan struct{})
	go func() { defer close(closed); _, _ = io.Copy(io.Discard, r); _ = c.Close() }()
	return closed
}
