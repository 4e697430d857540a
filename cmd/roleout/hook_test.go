package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/roleout/roleout/webhook"
)

// deliverHook posts a hook delivery for main, signed with secret, to
// roleout run's /hook at addr, and returns the response's status code.
func deliverHook(t *testing.T, addr, secret string) int {
	t.Helper()
	body := []byte(`{"ref":"refs/heads/main"}`)
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/hook", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(webhook.SignatureHeader, webhook.Sign([]byte(secret), body, time.Now()))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// freeAddress returns a loopback address nothing listens on now.
func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestHookTriggersPoll runs the agent with an hourly schedule and its
// HTTP endpoint: a delivery signed with the shared secret makes it poll
// at once and roll out the new commit; a bad signature and a replay of a
// good delivery get 401 and trigger nothing.
func TestHookTriggersPoll(t *testing.T) {
	t.Parallel()
	const ns = "hook"
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
	var out syncBuffer
	cmd := startRoleout(t, &out, "run", "--config", config)
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	first, _ := repo.Rev("refs/heads/main")
	if !waitForStatus(t, repo, ns, time.Minute, succeededAt(first)) {
		t.Fatalf("the first poll did not roll out:\n%s", out.String())
	}
	post := func(sig string, body []byte) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/hook", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(webhook.SignatureHeader, sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	second, err := repo.Commit("main", "v2", threeWaves(ns, "v2"))
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"ref":"refs/heads/main"}`)
	good := webhook.Sign([]byte("s3cret"), body, time.Now())
	if code := post(webhook.Sign([]byte("wrong"), body, time.Now()), body); code != http.StatusUnauthorized {
		t.Errorf("a delivery signed with another secret got %d, want 401", code)
	}
	// Nothing polls for an hour unless the hook does: a rollout of v2
	// before the good delivery would be the bad one's doing.
	time.Sleep(3 * time.Second)
	if st := readStatus(t, repo, ns); st.SourceRevision != "main@sha1:"+first {
		t.Fatalf("a delivery with a bad signature triggered a rollout of %s", st.SourceRevision)
	}
	if code := post(good, body); code != http.StatusAccepted {
		t.Fatalf("a good delivery got %d, want 202", code)
	}
	if !waitForStatus(t, repo, ns, time.Minute, succeededAt(second)) {
		t.Fatalf("the good delivery did not make the agent roll out v2:\n%s", out.String())
	}
	if code := post(good, body); code != http.StatusUnauthorized {
		t.Errorf("a replayed delivery got %d, want 401", code)
	}
	if n := strings.Count(out.String(), "poll triggered"); n != 1 {
		t.Errorf("the agent logged %d triggered polls, want 1 (the good delivery only):\n%s", n, out.String())
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(text)
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		code, text := get(path)
		if code != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, code, text)
		}
		if path != "/metrics" {
			continue
		}
		// The rollout is counted once its status is committed: give the
		// counter a moment after the status the test waited for.
		const rollouts = `roleout_rollouts_total{app="hook",result="Succeeded"} 2`
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(text, rollouts) && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			_, text = get(path)
		}
		if !strings.Contains(text, rollouts) {
			t.Errorf("/metrics does not count the two rollouts:\n%s", text)
		}
	}
}
