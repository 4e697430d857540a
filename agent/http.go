package agent

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

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/roleout/roleout/render"
)

// Hook signature headers. roleout's own signs a timestamp with the body
// (stale and replayed deliveries are refused); the forge form (GitHub,
// Gitea, Forgejo) signs the body, and a body may be delivered once (a
// day): replays are keyed on the MAC, never on an unsigned delivery ID.
const (
	SignatureHeader      = "X-Roleout-Signature" // t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">
	ForgeSignatureHeader = "X-Hub-Signature-256" // sha256=<hex HMAC-SHA256 of body>
	hookMaxAge           = 5 * time.Minute
	maxHookBody          = 1 << 20
)

// Handler returns the agent's HTTP endpoints: /healthz (503 with the
// reason while the running loop has not completed a poll within
// healthz.maxPollAge; a standby replica, whose loop does not run, is
// healthy), /readyz (see readiness), /metrics (Prometheus) and, with a
// secret, POST /hook, which triggers a poll when its HMAC signature is
// good.
func (a *Agent) Handler(hookSecret []byte) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if err := a.live.check(a.deps.now()); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		msg, ok := a.readiness()
		if !ok {
			http.Error(w, msg, http.StatusServiceUnavailable)
			return
		}
		if err := render.NetworkIsolation(""); err != nil {
			msg += "; renders are not network-isolated (previews refuse to render unless render.requireNetworkIsolation is false): " + err.Error()
		}
		_, _ = io.WriteString(w, msg+"\n")
	})
	mux.Handle("/metrics", promhttp.HandlerFor(a.metrics.registry, promhttp.HandlerOpts{}))
	if len(hookSecret) > 0 {
		mux.Handle("/hook", &hook{secret: hookSecret, trigger: a.Trigger, seen: map[string]time.Time{}, now: time.Now})
	}
	return mux
}

// readiness is what /readyz reports, on one line, and whether the
// replica is ready. Readiness does not depend on leadership, or a rolling
// update of several replicas would wait forever for a standby to poll: a
// replica standing by in leader election is ready once it has read the
// Lease from the API server; the leader, and an agent without leader
// election, once its first fetch has returned.
func (a *Agent) readiness() (string, bool) {
	if msg, ok, sharded := a.shardReadiness(); sharded {
		return msg, ok
	}
	electing, seen, leading := a.elect.state()
	switch {
	case electing && !leading && !seen:
		return "standing by: the leader election Lease has not been read from the API server yet", false
	case electing && !leading:
		return "ok: standing by, not leading", true
	case !a.metrics.ready() && leading:
		return "leading: no poll has completed yet", false
	case !a.metrics.ready():
		return "no poll has completed yet", false
	case leading:
		return "ok: leading", true
	}
	return "ok", true
}

// hook verifies signed deliveries and triggers polls.
type hook struct {
	secret  []byte
	trigger func()
	now     func() time.Time
	mu      sync.Mutex
	seen    map[string]time.Time // MAC (canonical hex) → when first seen
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxHookBody))
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

// verify checks either signature form and returns the key that must not
// be used twice: the MAC, canonical.
func (h *hook) verify(header http.Header, body []byte) (string, bool) {
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
		if age := h.now().Sub(time.Unix(sec, 0)); age > hookMaxAge || age < -hookMaxAge {
			return "", false
		}
		return validMAC(h.secret, []byte(ts+"."+string(body)), v1)
	}
	sig, ok := strings.CutPrefix(header.Get(ForgeSignatureHeader), "sha256=")
	if !ok {
		return "", false
	}
	// The replay key is the MAC, which covers the body: a delivery ID
	// is not signed, so a replay could name a new one, and a MAC's hex
	// text has two cases for one value.
	return validMAC(h.secret, body, sig)
}

// firstTime records key and reports whether it was not seen within the
// last day.
func (h *hook) firstTime(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	for k, t := range h.seen {
		if now.Sub(t) > 24*time.Hour {
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

// SignHook returns the X-Roleout-Signature value for body at time t.
func SignHook(secret, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hexMAC(secret, []byte(ts+"."+string(body)))
}

// hexMAC returns the hex HMAC-SHA256 of msg, as forges sign hook bodies.
func hexMAC(secret, msg []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(msg)
	return hex.EncodeToString(m.Sum(nil))
}
