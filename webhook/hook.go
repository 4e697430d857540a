package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Signature headers. roleout's own signs a timestamp with the body (stale
// and replayed deliveries are refused); the forge form (GitHub, Gitea,
// Forgejo) signs the body, and a body may be delivered once (a day):
// replays are keyed on the MAC, never on an unsigned delivery ID.
const (
	SignatureHeader      = "X-Roleout-Signature" // t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">
	ForgeSignatureHeader = "X-Hub-Signature-256" // sha256=<hex HMAC-SHA256 of body> (GitHub; Gitea and Forgejo send it too)
	// GitLabTokenHeader carries GitLab's secret token as it is (GitLab
	// signs nothing), GitLabDeliveryHeader its delivery's UUID: a
	// delivery is accepted once.
	GitLabTokenHeader = "X-Gitlab-Token"
	// GiteaSignatureHeader is Gitea's and Forgejo's own form: the hex
	// HMAC-SHA256 of the body, without a prefix.
	GiteaSignatureHeader = "X-Gitea-Signature"
	GitLabDeliveryHeader = "X-Gitlab-Event-UUID"
	// MaxAge bounds how old (or how far ahead) a timestamped delivery may
	// be.
	MaxAge = 5 * time.Minute
	// MaxBody bounds the body read.
	MaxBody = 1 << 20
	// replayWindow is how long a delivery's MAC is remembered.
	replayWindow = 24 * time.Hour
)

// Handler verifies signed deliveries and calls Trigger for each good one
// it has not seen within a day.
type Handler struct {
	secret  []byte
	trigger func()
	now     func() time.Time
	mu      sync.Mutex
	seen    map[string]time.Time // MAC (canonical hex) → when first seen
}

// NewHandler returns the handler of deliveries signed with secret;
// trigger is called for each good one. now is the clock (nil: time.Now).
func NewHandler(secret []byte, trigger func(), now func() time.Time) *Handler {
	if now == nil {
		now = time.Now
	}
	return &Handler{secret: secret, trigger: trigger, now: now, seen: map[string]time.Time{}}
}

// ServeHTTP answers 202 and triggers on a good, fresh, first delivery; 401
// otherwise, 405 for anything but POST.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody))
	if err != nil {
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	key, ok := h.verify(r.Header, body)
	if !ok || !h.firstTime(key) {
		http.Error(w, "bad, stale or replayed signature", http.StatusUnauthorized)
		return
	}
	h.trigger()
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, "poll triggered\n")
}

// verify checks the delivery's signature (roleout's, the forge form, or
// GitLab's token) and returns the key that must not be used twice: the
// MAC, canonical, or GitLab's delivery UUID.
func (h *Handler) verify(header http.Header, body []byte) (string, bool) {
	if sig := header.Get(SignatureHeader); sig != "" {
		var ts, v1 string
		for _, part := range strings.Split(sig, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
			switch k {
			case "t":
				ts = v
			case "v1":
				v1 = v
			}
		}
		sec, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			return "", false
		}
		if age := h.now().Sub(time.Unix(sec, 0)); age > MaxAge || age < -MaxAge {
			return "", false
		}
		return validMAC(h.secret, []byte(ts+"."+string(body)), v1)
	}
	if token := header.Get(GitLabTokenHeader); token != "" {
		// GitLab's token proves the sender, not the body: the delivery's
		// UUID is what a replay would repeat.
		uuid := header.Get(GitLabDeliveryHeader)
		if uuid == "" || !hmac.Equal([]byte(token), h.secret) {
			return "", false
		}
		return "gitlab " + uuid, true
	}
	sig, ok := strings.CutPrefix(header.Get(ForgeSignatureHeader), "sha256=")
	if !ok {
		if sig = header.Get(GiteaSignatureHeader); sig == "" {
			return "", false
		}
	}
	// The replay key is the MAC, which covers the body: a delivery ID
	// is not signed, so a replay could name a new one, and a MAC's hex
	// text has two cases for one value.
	return validMAC(h.secret, body, sig)
}

// firstTime records key and reports whether it was not seen within the
// replay window.
func (h *Handler) firstTime(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	for k, t := range h.seen {
		if now.Sub(t) > replayWindow {
			delete(h.seen, k)
		}
	}
	if _, dup := h.seen[key]; dup {
		return false
	}
	h.seen[key] = now
	return true
}

// validMAC reports whether hexSig is the HMAC-SHA256 of msg, and returns
// it in one canonical form (lower-case hex): the key replays are refused
// by, whatever case the sender wrote it in.
func validMAC(secret, msg []byte, hexSig string) (string, bool) {
	want, err := hex.DecodeString(hexSig)
	if err != nil {
		return "", false
	}
	m := hmac.New(sha256.New, secret)
	m.Write(msg)
	return hex.EncodeToString(want), hmac.Equal(m.Sum(nil), want)
}

// Sign returns the X-Roleout-Signature value for body at time t.
func Sign(secret, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + MAC(secret, []byte(ts+"."+string(body)))
}

// MAC returns the hex HMAC-SHA256 of msg, as forges sign hook bodies
// (the X-Hub-Signature-256 value without its sha256= prefix).
func MAC(secret, msg []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(msg)
	return hex.EncodeToString(m.Sum(nil))
}
