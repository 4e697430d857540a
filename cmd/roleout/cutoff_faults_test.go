//go:build faults

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/sharding"
)

// blackhole forwards TCP to target until cut. From then on it reads and
// discards what either side sends, on every connection open at the cut
// and every one opened during it: a network that drops a replica's
// packets. restore forwards new connections again and closes the ones
// the cut dropped, as their peer would reset them.
type blackhole struct {
	l      net.Listener
	target string

	mu      sync.Mutex
	cut     bool
	dropped map[net.Conn]bool
	open    map[net.Conn]*bool // a connection, and whether it is dropped
}

func startBlackhole(t *testing.T, target string) *blackhole {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &blackhole{l: l, target: target, open: map[net.Conn]*bool{}}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go b.serve(c)
		}
	}()
	return b
}

// addr is where the proxy listens.
func (b *blackhole) addr() string { return b.l.Addr().String() }

// serve forwards c to the target, or drops it during a cut.
func (b *blackhole) serve(c net.Conn) {
	defer c.Close()
	b.mu.Lock()
	dropped := b.cut
	b.open[c] = &dropped
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.open, c)
		b.mu.Unlock()
	}()
	if dropped {
		_, _ = io.Copy(io.Discard, c)
		return
	}
	up, err := net.Dial("tcp", b.target)
	if err != nil {
		return
	}
	defer up.Close()
	go b.copy(up, c, c)
	b.copy(c, up, c)
}

// copy copies src to dst until either ends, discarding from the cut on.
func (b *blackhole) copy(dst io.Writer, src io.Reader, c net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			b.mu.Lock()
			d := b.open[c]
			if b.cut && d != nil {
				*d = true
			}
			drop := d == nil || *d
			b.mu.Unlock()
			if !drop {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// setCut cuts (true) or restores (false) the network.
func (b *blackhole) setCut(cut bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cut = cut
	for c, d := range b.open {
		if cut {
			*d = true
		} else if *d {
			c.Close()
		}
	}
}

// TestFaultCutOff runs two replicas with dynamic sharding, ct-b through
// a proxy to the API server, and cuts that proxy off while a commit
// rolls out: ct-b ends its session and holds nothing before its member
// Lease expires, no status commit of ct-b's reaches the status branch
// after that, and ct-a takes its apps once the Lease has expired and
// finishes the commit. When the network is back, ct-b takes part again
// and a later commit is written once per app.
func TestFaultCutOff(t *testing.T) {
	s := newScaleOut(t, "ct", 8)
	apiHost := strings.TrimPrefix(cluster.Config.Host, "https://")
	proxy := startBlackhole(t, apiHost)
	kubeconfig, err := os.ReadFile(cluster.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	viaProxy := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(viaProxy, []byte(strings.ReplaceAll(string(kubeconfig), apiHost, proxy.addr())), 0o600); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.config)
	proxied := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(proxied, []byte(strings.ReplaceAll(string(data), cluster.Kubeconfig, viaProxy)), 0o644); err != nil {
		t.Fatal(err)
	}
	bAddr := freeAddress(t)
	s.start("ct-a")
	s.startWith("ct-b", withHTTPAddress(t, proxied, bAddr))
	head, _ := s.repo.Rev("refs/heads/main")
	s.rolledOut("2 replicas roll out v1", head, 2*time.Minute)
	reps := s.settled(time.Minute, "ct-a", "ct-b")
	owners := s.checkOwners(reps, "ct-a", "ct-b")

	// A commit, and ct-b is cut off as it starts to roll it out.
	committed := time.Now()
	head = s.commit("v2")
	for time.Since(committed) < 5*time.Second && !strings.Contains(s.logs["ct-b"].String(), "sha1:"+head[:7]) {
		time.Sleep(20 * time.Millisecond)
	}
	cut := time.Now()
	proxy.setCut(true)
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	member, err := cs.CoordinationV1().Leases("default").Get(context.Background(), sharding.MemberLeaseName("ct", "ct-b"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Nothing ct-b sent after the cut arrived: this is its last renewal.
	expires := member.Spec.RenewTime.Add(6 * time.Second)
	t.Logf("cut %s after the commit; ct-b's Lease expires %s after the cut", cut.Sub(committed).Round(time.Millisecond), expires.Sub(cut).Round(time.Millisecond))

	// Watch the status branch and ct-b's metrics until ct-a has finished.
	var stopped time.Time
	seen := map[string]time.Time{} // ct-b's status commits, when first seen
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if stopped.IsZero() && metricAt(bAddr, `roleout_apps_owned{replica="ct-b"}`) == `roleout_apps_owned{replica="ct-b"} 0` {
			stopped = time.Now()
		}
		log, err := s.repo.Messages("roleout/status")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range log {
			if strings.HasSuffix(strings.TrimSpace(c), agent.ReplicaTrailer+": ct-b") && seen[c].IsZero() {
				seen[c] = time.Now()
			}
		}
		if time.Since(expires) > 10*time.Second && s.succeeded(head) {
			break
		}
	}
	if stopped.IsZero() || !stopped.Before(expires) {
		t.Errorf("ct-b still held apps at %s, its Lease expired at %s", stopped.Format("15:04:05.000"), expires.Format("15:04:05.000"))
	}
	for c, at := range seen {
		if at.After(expires) {
			t.Errorf("a status commit of the cut-off ct-b reached the branch %s after its Lease expired: %s", at.Sub(expires), c)
		}
	}
	s.rolledOut("ct-a finishes v2", head, time.Minute)
	s.checkOwners(s.settled(time.Minute, "ct-a"), "ct-a")
	for app, id := range owners {
		l, err := cs.CoordinationV1().Leases("default").Get(context.Background(), sharding.AppLeaseName("ct", app), metav1.GetOptions{})
		if err == nil && id == "ct-b" && l.Spec.AcquireTime != nil && l.Spec.AcquireTime.Time.Before(expires) {
			t.Errorf("%s taken from ct-b at %s, before its Lease expired at %s", app, l.Spec.AcquireTime.Format("15:04:05.000"), expires.Format("15:04:05.000"))
		}
	}
	s.checkWrittenOnce("v2", committed, "ct-b")

	// The network comes back: ct-b takes part again.
	proxy.setCut(false)
	back := time.Now()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		if strings.HasPrefix(readyzOf(bAddr), "200 ok: member ct-b of 2") && !strings.HasSuffix(readyzOf(bAddr), "holding 0 apps") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ct-b did not take part again: %s\n%s", readyzOf(bAddr), tail(s.logs["ct-b"].String(), 30))
		}
	}
	t.Logf("ct-b took part again %s after the network came back", time.Since(back).Round(time.Millisecond))
	again := time.Now()
	head = s.commit("v3")
	s.rolledOut("2 replicas roll out v3", head, 2*time.Minute)
	s.checkWrittenOnce("v3", again)
	if len(seen) == 0 {
		t.Errorf("no status commit names ct-b in a %s trailer", agent.ReplicaTrailer)
	}
	for i := range s.apps {
		app := fmt.Sprintf("ct-%d", i)
		checkInvariants(t, s.repo, app, app)
	}
}
