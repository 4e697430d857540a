package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/outbox"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/webhook"
)

// Event is what a notification tells, as the generic webhook's JSON body
// writes it.
type Event struct {
	// Event is started, succeeded, failed or driftHealed.
	Event   string `json:"event"`
	App     string `json:"app"`
	Cluster string `json:"cluster,omitempty"`
	// SourceRevision is main@sha1:…, Commit its commit.
	SourceRevision string    `json:"revision"`
	Commit         string    `json:"commit"`
	Phase          string    `json:"phase"`
	Message        string    `json:"message,omitempty"`
	Roles          []Role    `json:"roles,omitempty"`
	Time           time.Time `json:"time"`
}

// Role is a role of an Event: its revision and what the rollout did.
type Role struct {
	Name           string `json:"name"`
	RevisionNumber int64  `json:"revision,omitempty"`
	Result         string `json:"result"`
}

// Notifier sends events to the configured notifications.
type Notifier struct {
	targets []config.Notification
	log     logrus.FieldLogger
	client  *http.Client
	// Outbox makes the posts (tests shorten its backoff).
	Outbox *outbox.Outbox
	now    func() time.Time

	mu   sync.Mutex
	sent map[string]bool // app, commit and event of what was sent
}

// maxSent bounds the memory of what was sent.
const maxSent = 10000

// New returns a notifier to targets (none: it sends nothing).
func New(targets []config.Notification, log logrus.FieldLogger) *Notifier {
	ob := outbox.New(log.WithField("notifications", len(targets)))
	ob.Temporary = temporary
	return &Notifier{targets: targets, log: log, client: &http.Client{Timeout: 15 * time.Second}, Outbox: ob, now: time.Now, sent: map[string]bool{}}
}

// Run posts until ctx ends.
func (n *Notifier) Run(ctx context.Context) { n.Outbox.Run(ctx) }

// Flushed returns a channel closed once everything queued is sent or
// dropped.
func (n *Notifier) Flushed() <-chan struct{} { return n.Outbox.Flushed() }

// Previewed sends nothing: previews are for reviewers (the forge).
func (n *Notifier) Previewed(string, string) {}

// Recorded sends the events st means for app at commit: started when a
// rollout begins, succeeded when one applied roles, failed, drift healed
// when roles were healed; each once per app and commit.
func (n *Notifier) Recorded(app, cluster, commit string, st *status.App) {
	for _, event := range events(st) {
		key := app + " " + commit + " " + event
		n.mu.Lock()
		dup := n.sent[key]
		if len(n.sent) >= maxSent {
			clear(n.sent)
		}
		n.sent[key] = true
		n.mu.Unlock()
		if dup {
			continue
		}
		ev := Event{Event: event, App: app, Cluster: cluster, SourceRevision: st.SourceRevision, Commit: commit, Phase: st.Phase, Message: st.Message, Time: n.now().UTC()}
		for _, r := range st.Roles {
			ev.Roles = append(ev.Roles, Role{Name: r.Name, RevisionNumber: r.RevisionNumber, Result: r.Result})
		}
		for i, t := range n.targets {
			if t.Wants(event) {
				n.Outbox.Add(fmt.Sprintf("%d %s %s %s", i, app, commit, event), fmt.Sprintf("%s %s of %s to notifications[%d]", t.Type, event, app, i), func(ctx context.Context) error {
					return n.send(ctx, t, ev)
				})
			}
		}
	}
}

// events are the events of a status: what happened to its roles.
func events(st *status.App) []string {
	applied, healed := false, false
	for _, r := range st.Roles {
		applied = applied || r.Result == status.RoleApplied
		healed = healed || r.Result == status.RoleHealed
	}
	var out []string
	switch st.Phase {
	case status.PhaseProgressing:
		out = append(out, config.EventStarted)
	case status.PhaseSucceeded, status.PhaseRolledBack:
		if applied {
			out = append(out, config.EventSucceeded)
		}
	case status.PhaseFailed:
		out = append(out, config.EventFailed)
	}
	if healed && st.Phase != status.PhaseProgressing {
		out = append(out, config.EventDriftHealed)
	}
	return out
}

// send posts ev to t.
func (n *Notifier) send(ctx context.Context, t config.Notification, ev Event) error {
	target := t.URL
	if t.URLFile != "" { // read at each post: a rotated URL is used at once
		data, err := os.ReadFile(t.URLFile)
		if err != nil {
			return permanent{fmt.Errorf("read urlFile: %w", err)}
		}
		target = strings.TrimSpace(string(data))
	}
	var body []byte
	var err error
	header := http.Header{"Content-Type": {"application/json"}, "User-Agent": {"roleout"}}
	switch t.Type {
	case config.NotifySlack:
		body, err = json.Marshal(map[string]string{"text": slackText(ev)})
	default:
		body, err = json.Marshal(ev)
		if t.SecretFile != "" {
			secret, rerr := os.ReadFile(t.SecretFile)
			if rerr != nil {
				return permanent{fmt.Errorf("read secretFile: %w", rerr)}
			}
			header.Set(webhook.SignatureHeader, webhook.Sign(bytes.TrimSpace(secret), body, n.now()))
		}
	}
	if err != nil {
		return permanent{err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return permanent{errors.New("the notification's URL is not valid")} // the URL may be a secret: not quoted
	}
	req.Header = header
	resp, err := n.client.Do(req)
	if err != nil {
		return fmt.Errorf("post the notification: %w", redact(err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("the notification was answered %d", resp.StatusCode)
	}
	return permanent{fmt.Errorf("the notification was refused: %d", resp.StatusCode)}
}

// slackText is ev as one line of Slack text: its control characters
// escaped (a role name from the repository is untrusted).
func slackText(ev Event) string {
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	words := map[string]string{config.EventStarted: "rollout started", config.EventSucceeded: "rolled out", config.EventFailed: "rollout failed", config.EventDriftHealed: "drift healed"}
	where := ev.App
	if ev.Cluster != "" {
		where += " on " + ev.Cluster
	}
	text := fmt.Sprintf("roleout: %s %s at %s", esc.Replace(where), words[ev.Event], esc.Replace(status.Short(ev.Commit)))
	if ev.Event == config.EventFailed && ev.Message != "" {
		msg := ev.Message
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		text += ": " + esc.Replace(strings.Join(strings.Fields(msg), " "))
	}
	return text
}

// permanent is an error trying again cannot mend.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

func temporary(err error) bool {
	var p permanent
	return !errors.As(err, &p)
}

// redact drops the URL from a transport error: an incoming webhook's URL
// is its secret.
func redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
