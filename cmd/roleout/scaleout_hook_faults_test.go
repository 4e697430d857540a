//go:build faults

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roleout/roleout/status"
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
	s.startWith("hk-a", hooked)
	s.start("hk-b")
	s.rolledOut("both replicas' first polls", first, 2*time.Minute)
	reps := s.waitAll("both replicas hold apps", time.Minute, func(r status.Report) bool { return r.Owner != "" })
	s.checkOwners(reps, "hk-a", "hk-b")

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
