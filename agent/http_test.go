package agent

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestHTTPEndpoints(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	secret := []byte("hook-s3cret")
	srv := httptest.NewServer(h.agent.Handler(secret))
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d", code)
	}
	if code, _ := get("/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before any poll = %d, want 503", code)
	}
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if code, _ := get("/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after a poll = %d", code)
	}
	code, body := get("/metrics")
	for _, want := range []string{`roleout_rollouts_total{app="llm",result="Succeeded"} 1`, `roleout_objects_applied_total{action="configured",app="llm"} 4`,
		"roleout_poll_duration_seconds_count 1", `roleout_last_applied_commit_timestamp_seconds{app="llm"}`, `roleout_reconcile_duration_seconds_count{app="llm"} 1`} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestHookSignatures(t *testing.T) {
	secret := []byte("hook-s3cret")
	now := time.Unix(1_800_000_000, 0)
	triggered := 0
	hk := &hook{secret: secret, trigger: func() { triggered++ }, seen: map[string]time.Time{}, now: func() time.Time { return now }}
	body := []byte(`{"ref":"refs/heads/main"}`)
	post := func(header, value string) int {
		r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(string(body)))
		if header != "" {
			r.Header.Set(header, value)
		}
		r.Header.Set("X-GitHub-Delivery", "")
		w := httptest.NewRecorder()
		hk.ServeHTTP(w, r)
		return w.Code
	}
	good := SignHook(secret, body, now)
	cases := []struct {
		name          string
		header, value string
		want          int
		wantTriggered int
	}{
		{"good signature", SignatureHeader, good, http.StatusAccepted, 1},
		{"replayed", SignatureHeader, good, http.StatusUnauthorized, 1},
		{"stale", SignatureHeader, SignHook(secret, body, now.Add(-10*time.Minute)), http.StatusUnauthorized, 1},
		{"wrong secret", SignatureHeader, SignHook([]byte("other"), body, now.Add(time.Second)), http.StatusUnauthorized, 1},
		{"no signature", "", "", http.StatusUnauthorized, 1},
		{"forge form", ForgeSignatureHeader, "sha256=" + mac(secret, body), http.StatusAccepted, 2},
		{"forge form replayed", ForgeSignatureHeader, "sha256=" + mac(secret, body), http.StatusUnauthorized, 2},
	}
	for _, tc := range cases {
		if got := post(tc.header, tc.value); got != tc.want || triggered != tc.wantTriggered {
			t.Errorf("%s: status %d (want %d), triggered %d (want %d)", tc.name, got, tc.want, triggered, tc.wantTriggered)
		}
	}
}

func mac(secret, body []byte) string { return hexMAC(secret, body) }
