package webhook

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHookSignatures: both signature forms are accepted once; stale,
// replayed (whatever the case of the MAC or the delivery ID), unsigned
// and wrongly signed deliveries are refused and trigger nothing.
func TestHookSignatures(t *testing.T) {
	secret := []byte("hook-s3cret")
	now := time.Unix(1_800_000_000, 0)
	triggered := 0
	hk := NewHandler(secret, func() { triggered++ }, func() time.Time { return now })
	body := []byte(`{"ref":"refs/heads/main"}`)
	delivery := 0
	post := func(header, value string) int {
		r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(string(body)))
		if header != "" {
			r.Header.Set(header, value)
		}
		// Every delivery names a new ID: the signature does not cover it.
		delivery++
		r.Header.Set("X-GitHub-Delivery", fmt.Sprintf("delivery-%d", delivery))
		r.Header.Set(GitLabDeliveryHeader, fmt.Sprintf("uuid-%d", delivery))
		w := httptest.NewRecorder()
		hk.ServeHTTP(w, r)
		return w.Code
	}
	good := Sign(secret, body, now)
	cases := []struct {
		name          string
		header, value string
		want          int
		wantTriggered int
	}{
		{"good signature", SignatureHeader, good, http.StatusAccepted, 1},
		{"replayed", SignatureHeader, good, http.StatusUnauthorized, 1},
		{"replayed, the MAC upper-cased", SignatureHeader, good[:strings.Index(good, "v1=")+3] + strings.ToUpper(good[strings.Index(good, "v1=")+3:]), http.StatusUnauthorized, 1},
		{"stale", SignatureHeader, Sign(secret, body, now.Add(-10*time.Minute)), http.StatusUnauthorized, 1},
		{"wrong secret", SignatureHeader, Sign([]byte("other"), body, now.Add(time.Second)), http.StatusUnauthorized, 1},
		{"no signature", "", "", http.StatusUnauthorized, 1},
		{"forge form", ForgeSignatureHeader, "sha256=" + MAC(secret, body), http.StatusAccepted, 2},
		{"forge form replayed with a new delivery ID", ForgeSignatureHeader, "sha256=" + MAC(secret, body), http.StatusUnauthorized, 2},
		{"forge form replayed, the MAC upper-cased", ForgeSignatureHeader, "sha256=" + strings.ToUpper(MAC(secret, body)), http.StatusUnauthorized, 2},
		{"gitlab token", GitLabTokenHeader, string(secret), http.StatusAccepted, 3},
		{"gitlab, the wrong token", GitLabTokenHeader, "other", http.StatusUnauthorized, 3},
		{"gitea's own form, the same body: a replay", GiteaSignatureHeader, MAC(secret, body), http.StatusUnauthorized, 3},
	}
	for _, tc := range cases {
		if got := post(tc.header, tc.value); got != tc.want || triggered != tc.wantTriggered {
			t.Errorf("%s: status %d (want %d), triggered %d (want %d)", tc.name, got, tc.want, triggered, tc.wantTriggered)
		}
	}
}

// TestGitLabDeliveryOnce: a GitLab delivery (its token right) is accepted
// once by its UUID, and one without a UUID not at all.
func TestGitLabDeliveryOnce(t *testing.T) {
	triggered := 0
	hk := NewHandler([]byte("s3cret"), func() { triggered++ }, nil)
	post := func(uuid string) int {
		r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(`{"object_kind":"merge_request"}`))
		r.Header.Set(GitLabTokenHeader, "s3cret")
		if uuid != "" {
			r.Header.Set(GitLabDeliveryHeader, uuid)
		}
		w := httptest.NewRecorder()
		hk.ServeHTTP(w, r)
		return w.Code
	}
	if a, b, c := post("u1"), post("u1"), post(""); a != 202 || b != 401 || c != 401 || triggered != 1 {
		t.Errorf("first %d, replayed %d, no UUID %d, triggered %d", a, b, c, triggered)
	}
}

// TestGiteaSignature: Gitea's (and Forgejo's) X-Gitea-Signature, a bare
// hex MAC, is accepted once.
func TestGiteaSignature(t *testing.T) {
	triggered := 0
	hk := NewHandler([]byte("s3cret"), func() { triggered++ }, nil)
	body := `{"action":"opened"}`
	post := func(sig string) int {
		r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
		r.Header.Set(GiteaSignatureHeader, sig)
		w := httptest.NewRecorder()
		hk.ServeHTTP(w, r)
		return w.Code
	}
	good := MAC([]byte("s3cret"), []byte(body))
	if a, b, c := post(good), post(good), post(MAC([]byte("other"), []byte(body))); a != 202 || b != 401 || c != 401 || triggered != 1 {
		t.Errorf("good %d, replayed %d, wrong secret %d, triggered %d", a, b, c, triggered)
	}
}
