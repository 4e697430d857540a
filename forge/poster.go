package forge

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/internal/outbox"
	"github.com/roleout/roleout/status"
)

// PreviewReader reads the previews of pull-request ref of every app, as
// the status branch records them.
type PreviewReader func(ctx context.Context, ref string) ([]status.Preview, error)

// Poster posts to a forge on its own time, so that nothing it does
// blocks or fails a rollout. Statuses and comments queue, keyed (a
// commit and a context; a pull request): the newest of a key replaces
// an older one not yet posted, and a status already posted is not posted
// again. A call the forge fails for a while (a rate limit, an outage, a
// timeout) is tried again with backoff, logged once; one that trying
// again cannot mend (401, 404, another 4xx) is logged and dropped.
type Poster struct {
	p        Provider
	previews PreviewReader
	log      logrus.FieldLogger
	// Outbox makes the posts (tests shorten its backoff).
	Outbox *outbox.Outbox
	// TargetURL, when set, is each status's link (the web view).
	TargetURL string
	// Cluster names an app's own cluster ("" for the agent's): its
	// status context says it.
	Cluster func(app string) string

	mu     sync.Mutex
	posted map[string]Status // by status key, what was posted last (at most maxPosted)
	me     string
}

// maxPosted bounds the statuses remembered as posted: forgetting one
// costs at most posting it again.
const maxPosted = 10000

// NewPoster returns a poster to p; previews reads a pull request's
// previews when its comment is made. Run makes the posts.
func NewPoster(p Provider, previews PreviewReader, log logrus.FieldLogger) *Poster {
	log = log.WithField("forge", p.Name())
	ob := outbox.New(log)
	ob.Temporary = Temporary
	ob.RetryAfter = func(err error) time.Duration {
		var fe *Error
		if errors.As(err, &fe) {
			return fe.RetryAfter
		}
		return 0
	}
	return &Poster{p: p, previews: previews, log: log, Outbox: ob, posted: map[string]Status{}}
}

// Run posts until ctx ends.
func (po *Poster) Run(ctx context.Context) { po.Outbox.Run(ctx) }

// Flushed returns a channel closed once everything queued is posted or
// dropped.
func (po *Poster) Flushed() <-chan struct{} { return po.Outbox.Flushed() }

// Status queues st on commit sha.
func (po *Poster) Status(sha string, st Status) {
	if po.TargetURL != "" && st.TargetURL == "" {
		st.TargetURL = po.TargetURL
	}
	key := "status " + sha + " " + st.Context
	po.Outbox.Add(key, fmt.Sprintf("status %s %s on %.7s", st.Context, st.State, sha), func(ctx context.Context) error {
		po.mu.Lock()
		same := po.posted[key] == st
		po.mu.Unlock()
		if same {
			return nil
		}
		if err := po.p.SetStatus(ctx, sha, st); err != nil {
			return err
		}
		po.mu.Lock()
		if len(po.posted) >= maxPosted { // a long-lived agent forgets old commits
			clear(po.posted)
		}
		po.posted[key] = st
		po.mu.Unlock()
		return nil
	})
}

// Recorded queues the status of app's rollout of commit as st records
// it: pending while its waves roll out, success when it succeeded (or a
// rollback held), failure with the failing role when it failed. Other
// phases (paused, waiting for a window, suspended) post nothing.
func (po *Poster) Recorded(app, cluster, commit string, st *status.App) {
	if s, ok := RolloutStatus(app, cluster, st); ok && commit != "" {
		po.Status(commit, s)
	}
}

// RolloutStatus is the commit status of app's rollout as st records it,
// and false for a phase that has none.
func RolloutStatus(app, cluster string, st *status.App) (Status, bool) {
	s := Status{Context: Context(app, cluster)}
	switch st.Phase {
	case status.PhaseProgressing:
		s.State, s.Description = Pending, "rolling out"
		for i, r := range st.Roles {
			if r.Result == status.RolePending {
				s.Description = fmt.Sprintf("rolling out: role %s next (%d of %d)", r.Name, i+1, len(st.Roles))
				break
			}
		}
	case status.PhaseSucceeded, status.PhaseRolledBack:
		s.State, s.Description = Success, "rolled out"
		var moved []string
		for _, r := range st.Roles {
			if r.Result == status.RoleApplied {
				moved = append(moved, fmt.Sprintf("%s → rev %d", r.Name, r.RevisionNumber))
			}
		}
		if len(moved) > 0 {
			s.Description = "rolled out: " + strings.Join(moved, ", ")
		}
	case status.PhaseFailed:
		s.State, s.Description = Failure, "failed: "+st.Message
		for _, r := range st.Roles {
			if r.Result == status.RoleFailed {
				s.Description = "role " + r.Name + " failed: " + r.Message
				break
			}
		}
	default:
		return s, false
	}
	return s, true
}

// Previewed queues the comment of pull-request ref at head, and a status
// per app on head: success when its preview plans, failure with the
// reason when it does not. A ref that is not a pull request's (a branch
// head whose signature was refused) gets the statuses only.
func (po *Poster) Previewed(ref, head string) {
	cluster := po.Cluster
	if cluster == nil {
		cluster = func(string) string { return "" }
	}
	pr, isPR := po.p.PullRequest(ref)
	po.Outbox.Add("preview "+ref, fmt.Sprintf("preview of %s at %.7s", ref, head), func(ctx context.Context) error {
		previews, err := po.previews(ctx, ref)
		if err != nil {
			return err
		}
		for _, p := range previews {
			if p.Commit == head {
				po.Status(head, previewStatus(p, cluster(p.App)))
			}
		}
		if !isPR {
			return nil
		}
		me, err := po.user(ctx)
		if err != nil {
			return err
		}
		res, err := SyncComment(ctx, po.p, me, pr, RenderComment(head, previews, po.p.CommentLimit()))
		for _, id := range res.HumanEdited {
			po.log.WithFields(logrus.Fields{"pullRequest": pr, "comment": id}).Warn("roleout's comment was edited by a person: replaced with the preview")
		}
		if err == nil && res.Created+res.Edited+res.Deleted > 0 {
			po.log.WithFields(logrus.Fields{"pullRequest": pr, "created": res.Created, "edited": res.Edited, "deleted": res.Deleted}).Info("preview comment posted")
		}
		return err
	})
}

// previewStatus is an app's status on a previewed head.
func previewStatus(p status.Preview, cluster string) Status {
	st := Status{Context: Context(p.App, cluster), State: Success}
	switch {
	case p.Error != "" || p.Plan == nil:
		st.State, st.Description = Failure, "cannot be rolled out: "+reason(p.Error)
	default:
		changed, restarts := p.Changes()
		st.Description = fmt.Sprintf("plans: %d role(s) change, %d workload(s) restart pods", changed, restarts)
	}
	return st
}

// whereAt is the "plan apps/web at refs/pull/7/head@sha1:…: " an error
// of a preview starts with: the status is on that head already.
var whereAt = regexp.MustCompile(`^(plan|render) \S+ at \S+: `)

// reason is the part of a preview's error that fits a status's one line:
// its first specific reason (an invalid object's field) when it lists
// them, else the error without where it happened.
func reason(err string) string {
	lines := strings.Split(strings.TrimSpace(err), "\n")
	if len(lines) > 1 && strings.TrimSpace(lines[1]) != "" {
		return strings.TrimSpace(lines[1])
	}
	return whereAt.ReplaceAllString(lines[0], "")
}

// user is the token's user, read once.
func (po *Poster) user(ctx context.Context) (string, error) {
	po.mu.Lock()
	me := po.me
	po.mu.Unlock()
	if me != "" {
		return me, nil
	}
	me, err := po.p.Me(ctx)
	if err != nil {
		return "", err
	}
	po.mu.Lock()
	po.me = me
	po.mu.Unlock()
	return me, nil
}
