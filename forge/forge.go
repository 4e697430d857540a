package forge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The states of a commit status, as roleout names them; each provider
// maps them to its forge's words.
const (
	Pending = "pending"
	Success = "success"
	Failure = "failure"
)

// Status is a commit status: one per app (and cluster) on a commit.
type Status struct {
	// Context names it: roleout/<app>, or roleout/<app>/<cluster> for an
	// app of its own cluster. A forge keeps one status per context and
	// commit, the newest.
	Context string
	// State is Pending, Success or Failure.
	State string
	// Description is one line (clipped to MaxDescription).
	Description string
	// TargetURL, when set, links to more (the web view).
	TargetURL string
}

// MaxDescription bounds a status's description: GitHub refuses longer.
const MaxDescription = 140

// Comment is a comment on a pull request.
type Comment struct {
	ID     int64
	Author string
	Body   string
}

// Provider is one forge's API, the few calls roleout makes: commit
// statuses, and the comments of a pull request (merge request).
type Provider interface {
	// Name is the forge's kind, for logs: github, gitlab or gitea.
	Name() string
	// Me is the user the token acts as: only its comments are roleout's.
	Me(ctx context.Context) (string, error)
	// SetStatus posts st on commit sha.
	SetStatus(ctx context.Context, sha string, st Status) error
	// Comments lists pull request pr's comments, oldest first.
	Comments(ctx context.Context, pr int) ([]Comment, error)
	// CreateComment adds a comment to pr.
	CreateComment(ctx context.Context, pr int, body string) (Comment, error)
	// EditComment replaces the body of comment id of pr.
	EditComment(ctx context.Context, pr int, id int64, body string) error
	// DeleteComment deletes comment id of pr.
	DeleteComment(ctx context.Context, pr int, id int64) error
	// CommentLimit is the most characters one comment may hold.
	CommentLimit() int
	// PullRequest returns the number of the pull request whose head ref
	// is ref (refs/pull/N/head; GitLab refs/merge-requests/N/head), and
	// false for any other ref.
	PullRequest(ref string) (int, bool)
}

// Error is a forge's refusal of a call: its HTTP status and what it
// said (clipped), and, for a rate limit, when to try again.
type Error struct {
	// Op is the call, "POST /repos/o/r/statuses/…".
	Op     string
	Status int
	// Message is the forge's own words, clipped to 300 bytes.
	Message string
	// RetryAfter is how long the forge asked to wait (a rate limit); 0
	// when it did not say.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %d", e.Op, e.Status)
	switch {
	case e.Status == 401:
		msg += " (the token was refused: revoked or expired? roleout re-reads forge.tokenFile when it changes)"
	case e.Status == 403 && e.RetryAfter > 0, e.Status == 429:
		msg += fmt.Sprintf(" (rate limited: roleout tries again in %s)", e.RetryAfter.Round(time.Second))
	case e.Status == 403:
		msg += " (the token may not do this: see forge.tokenFile in the README for the scopes it needs)"
	case e.Status == 404:
		msg += " (not found: the repository, the pull request or the comment is gone, or the token may not see it)"
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Temporary reports whether err may pass if tried again later: a rate
// limit, a forge's 5xx, a network error. A 401, a 404 or another 4xx is
// not: trying again posts nothing new.
func Temporary(err error) bool {
	var fe *Error
	if !errors.As(err, &fe) {
		return !errors.Is(err, context.Canceled)
	}
	return fe.Status == 429 || fe.Status >= 500 || (fe.Status == 403 && fe.RetryAfter > 0)
}

// Context is the status context of app: roleout/<app>, with the app's
// cluster when it has one of its own.
func Context(app, cluster string) string {
	if cluster == "" {
		return "roleout/" + app
	}
	return "roleout/" + app + "/" + cluster
}

// pullRequestNumber parses the N of prefix + N + "/head".
func pullRequestNumber(ref, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(ref, prefix)
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, "/head")
	if !ok || num == "" || len(num) > 9 {
		return 0, false
	}
	n := 0
	for _, r := range num {
		if r < '0' || r > '9' {
			return 0, false
		}
		n = n*10 + int(r-'0')
	}
	return n, n > 0
}

// oneLine returns s on one line, clipped to n bytes at a rune.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
