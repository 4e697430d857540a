//go:build faults

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFaultHookReachesEveryReplica shares 8 apps between two replicas
// that poll hourly, and delivers a hook for a new commit to one of them
// only, as a Service in front of the replicas would: the other hears of
// the new revision through the first one's member Lease and polls, so
// that every app rolls out the commit in seconds, not at the next hourly
// poll of the replica the hook missed.
func TestFaultHookReachesEveryReplica(t *testing.T) {
	s := newScaleOut(t, "hk", 8)
	secret := filepath.Join(t.TempDir(), "hook-secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.config)
	if err != nil {
		t.Fatal(err)
	}
	hourly := strings.Replace(string(data), "schedule: {interval: 2s}", "schedule: {interval: 1h}", 1)
	if err := os.WriteFile(s.config, []byte(hourly), 0o644); err != nil {
		t.Fatal(err)
	}
	hooked := filepath.Join(t.TempDir(), "hooked.yaml")
	withHook := strings.Replace(hourly, `http: {address: "-"}`, fmt.Sprintf("http: {address: %q, hookSecretFile: %q}", s.addr, secret), 1)
	if err := os.WriteFile(hooked, []byte(withHook), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := s.repo.Rev("refs/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	s.args = []string{"--log-level", "debug"} // for idle
	s.startWith("hk-a", hooked)
	s.start("hk-b")
	s.rolledOut("both replicas' first polls", first, 2*time.Minute)
	s.checkOwners(s.settled(time.Minute, "hk-a", "hk-b"), "hk-a", "hk-b")
	// hk-b polls once more for the apps it gained as they settled: that
	// poll must be over, or it would fetch v2 itself and have nothing to
	// hear.
	s.idle("hk-b", 30*time.Second)

	second := s.commit("v2")
	if code := deliverHook(t, s.addr, "s3cret"); code >= 300 {
		t.Fatalf("the hook delivery to hk-a: %d", code)
	}
	hooked2 := time.Now()
	s.rolledOut("v2 after a hook to hk-a alone", second, time.Minute)
	t.Logf("every app of both replicas rolled out v2 %s after the hook to one", time.Since(hooked2).Round(time.Millisecond))
	if log := s.logs["hk-b"].String(); !strings.Contains(log, "another replica fetched a revision this one has not: polling now") {
		t.Errorf("hk-b does not say why it polled:\n%s", tail(log, 30))
	}
}

// idle waits until replica id, run with --log-level debug, has finished
// every poll it began: its first and each one triggered.
func (s *scaleOut) idle(id string, d time.Duration) {
	s.t.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(100 * time.Millisecond) {
		log := s.logs[id].String()
		if strings.Count(log, "reconcile done") > strings.Count(log, "poll triggered") {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s still polling after %s:\n%s", id, d, tail(log, 30))
		}
	}
}
