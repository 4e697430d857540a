package notify

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/webhook"
)

// receiver records the bodies posted to it; the first fail answers are
// 500.
type receiver struct {
	mu      sync.Mutex
	bodies  []string
	headers []http.Header
	fail    int
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	data, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail > 0 {
		r.fail--
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	r.bodies = append(r.bodies, string(data))
	r.headers = append(r.headers, req.Header.Clone())
}

func (r *receiver) got() ([]string, []http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...), append([]http.Header(nil), r.headers...)
}

func write(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNotifications: a rollout's start, success, failure and a healed
// drift reach a Slack-compatible webhook (escaped text, URL from a file)
// and a signed JSON webhook, each once; a webhook that is down gets it
// when it is back, and a Slack that only wants failures gets only those.
func TestNotifications(t *testing.T) {
	slack, hook := &receiver{}, &receiver{fail: 2}
	ss, hs := httptest.NewServer(slack), httptest.NewServer(hook)
	defer ss.Close()
	defer hs.Close()
	secret := "notify-s3cret"
	n := New([]config.Notification{
		{Type: config.NotifySlack, URLFile: write(t, "url", ss.URL+"\n"), Events: []string{config.EventFailed, config.EventDriftHealed}},
		{Type: config.NotifyWebhook, URL: hs.URL, SecretFile: write(t, "secret", secret)},
	}, quiet())
	n.Outbox.Backoff.Base = time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go n.Run(ctx)

	const commit = "0123456789abcdef0123456789abcdef01234567"
	roles := func(result string) []*status.Role {
		return []*status.Role{{Name: "<b>web</b>", RevisionNumber: 2, Result: result}}
	}
	n.Recorded("shop", "eu", commit, &status.App{Phase: status.PhaseProgressing, SourceRevision: "main@sha1:" + commit, Roles: roles(status.RolePending)})
	n.Recorded("shop", "eu", commit, &status.App{Phase: status.PhaseProgressing, SourceRevision: "main@sha1:" + commit, Roles: roles(status.RolePending)}) // a checkpoint: no second start
	n.Recorded("shop", "eu", commit, &status.App{Phase: status.PhaseSucceeded, SourceRevision: "main@sha1:" + commit, Roles: roles(status.RoleApplied)})
	n.Recorded("shop", "eu", commit, &status.App{Phase: status.PhaseSucceeded, SourceRevision: "main@sha1:" + commit, Roles: roles(status.RoleHealed)})
	n.Recorded("cart", "", commit, &status.App{Phase: status.PhaseFailed, SourceRevision: "main@sha1:" + commit, Message: "role <b>api</b> failed: not ready", Roles: roles(status.RoleFailed)})
	n.Recorded("idle", "", commit, &status.App{Phase: status.PhaseSucceeded, Roles: roles(status.RoleUnchanged)}) // nothing happened
	select {
	case <-n.Flushed():
	case <-time.After(30 * time.Second):
		t.Fatal("the notifications were not sent")
	}

	bodies, headers := hook.got()
	var events []string
	verify := webhook.NewHandler([]byte(secret), func() {}, nil)
	for i, b := range bodies {
		var ev Event
		if err := json.Unmarshal([]byte(b), &ev); err != nil {
			t.Fatal(err)
		}
		events = append(events, ev.App+" "+ev.Event)
		r := httptest.NewRequest("POST", "/hook", strings.NewReader(b))
		r.Header.Set(webhook.SignatureHeader, headers[i].Get(webhook.SignatureHeader))
		w := httptest.NewRecorder()
		verify.ServeHTTP(w, r)
		if w.Code != http.StatusAccepted {
			t.Errorf("the webhook's signature of %s does not verify: %d", ev.Event, w.Code)
		}
	}
	sort.Strings(events) // a retried post arrives after later ones; each carries its time
	if got := strings.Join(events, ", "); got != "cart failed, shop driftHealed, shop started, shop succeeded" {
		t.Errorf("webhook events: %s", got)
	}
	texts, _ := slack.got()
	if len(texts) != 2 || !strings.Contains(texts[0], "shop on eu drift healed at 0123456") && !strings.Contains(texts[1], "shop on eu drift healed") {
		t.Errorf("slack got %v, want the drift healed and the failure only", texts)
	}
	for _, text := range texts {
		if strings.Contains(text, "<b>") {
			t.Errorf("slack text not escaped: %s", text)
		}
	}
}

func quiet() *logrus.Logger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}
