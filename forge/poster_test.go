package forge

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"

	"github.com/roleout/roleout/status"
)

// fakeForge is a Provider in memory whose calls fail as told.
type fakeForge struct {
	mu       sync.Mutex
	statuses []Status
	comments []Comment
	nextID   int64
	// fail, when set, answers the next calls' errors in turn.
	fail []error
}

func (f *fakeForge) failing() error {
	if len(f.fail) == 0 {
		return nil
	}
	err := f.fail[0]
	f.fail = f.fail[1:]
	return err
}

func (f *fakeForge) Name() string                       { return "fake" }
func (f *fakeForge) CommentLimit() int                  { return 65536 }
func (f *fakeForge) PullRequest(ref string) (int, bool) { return pullRequestNumber(ref, "refs/pull/") }
func (f *fakeForge) Me(context.Context) (string, error) { return "bot", nil }

func (f *fakeForge) SetStatus(_ context.Context, _ string, st Status) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing(); err != nil {
		return err
	}
	f.statuses = append(f.statuses, st)
	return nil
}

func (f *fakeForge) Comments(context.Context, int) ([]Comment, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Comment(nil), f.comments...), f.failing()
}

func (f *fakeForge) CreateComment(_ context.Context, _ int, body string) (Comment, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing(); err != nil {
		return Comment{}, err
	}
	f.nextID++
	c := Comment{ID: f.nextID, Author: "bot", Body: body}
	f.comments = append(f.comments, c)
	return c, nil
}

func (f *fakeForge) EditComment(_ context.Context, _ int, id int64, body string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.comments {
		if f.comments[i].ID == id {
			f.comments[i].Body = body
		}
	}
	return f.failing()
}

func (f *fakeForge) DeleteComment(context.Context, int, int64) error { return nil }

func (f *fakeForge) states() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, s := range f.statuses {
		out = append(out, s.Context+"="+s.State)
	}
	return out
}

// run starts po and returns a func that waits until its queue is empty.
func run(t *testing.T, po *Poster) func() {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go po.Run(ctx)
	return func() {
		t.Helper()
		select {
		case <-po.Flushed():
		case <-time.After(30 * time.Second):
			t.Fatal("the poster did not empty its queue")
		}
	}
}

// TestPosterRetriesAndDrops: a rate limit is waited out and the post
// made once, logged once; a revoked token's refusal is logged and the
// post dropped; a status already posted is not posted again; a failed
// preview posts a failure with its reason and the comment says so.
func TestPosterRetriesAndDrops(t *testing.T) {
	f := &fakeForge{fail: []error{&Error{Op: "POST", Status: 429, RetryAfter: time.Millisecond}, &Error{Op: "POST", Status: 429, RetryAfter: time.Millisecond}}}
	log, hook := test.NewNullLogger()
	previews := []status.Preview{{App: "shop", Ref: "refs/pull/7/head", Commit: head, Error: "validation: Deployment/shop/web: spec.replicas: Invalid value"}}
	po := NewPoster(f, func(context.Context, string) ([]status.Preview, error) { return previews, nil }, log)
	po.Outbox.Backoff.Base = time.Millisecond
	wait := run(t, po)

	po.Status(head, Status{Context: "roleout/shop", State: Pending, Description: "rolling out"})
	wait()
	if got := f.states(); len(got) != 1 || got[0] != "roleout/shop=pending" {
		t.Errorf("after a rate limit: %v, want the status posted once", got)
	}
	warnings := 0
	for _, e := range hook.AllEntries() {
		if e.Level == logrus.WarnLevel {
			warnings++
		}
	}
	if warnings != 1 {
		t.Errorf("%d warnings for one post retried twice, want 1", warnings)
	}
	po.Status(head, Status{Context: "roleout/shop", State: Pending, Description: "rolling out"})
	wait()
	if got := f.states(); len(got) != 1 {
		t.Errorf("the same status again was posted: %v", got)
	}

	f.mu.Lock()
	f.fail = []error{&Error{Op: "POST", Status: 401, Message: "Bad credentials"}}
	f.mu.Unlock()
	hook.Reset()
	po.Status(head, Status{Context: "roleout/shop", State: Success})
	wait()
	if got := f.states(); len(got) != 1 || hook.LastEntry() == nil || !strings.Contains(hook.LastEntry().Data["error"].(error).Error(), "the token was refused") {
		t.Errorf("a 401: statuses %v, log %v", got, hook.LastEntry())
	}

	po.Previewed("refs/pull/7/head", head)
	wait()
	got := f.states()
	if last := got[len(got)-1]; last != "roleout/shop=failure" {
		t.Errorf("a failed preview's status: %v", got)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.comments) != 1 || !strings.Contains(f.comments[0].Body, "cannot be rolled out") || !strings.Contains(f.comments[0].Body, "spec.replicas: Invalid value") {
		t.Errorf("the comment of a failed preview: %+v", f.comments)
	}
	if d := f.statuses[len(f.statuses)-1].Description; d != "cannot be rolled out: validation: Deployment/shop/web: spec.replicas: Invalid value" {
		t.Errorf("the failure's reason: %q", d)
	}
}

// TestReason: a status says the first specific reason of a preview's
// error, not where it happened.
func TestReason(t *testing.T) {
	for err, want := range map[string]string{
		"plan apps/three at refs/pull/1/head@sha1:29db975: 1 of the rendered objects would be refused by the API server: fix them\nDeployment/ns/b: spec.replicas: Invalid value: \"two\"": "Deployment/ns/b: spec.replicas: Invalid value: \"two\"",
		"render apps/web at refs/pull/2/head@sha1:abc: kustomize build apps/web: accumulating resources":                                                                                   "kustomize build apps/web: accumulating resources",
		"fetch refs/pull/3/head: not found": "fetch refs/pull/3/head: not found",
	} {
		if got := reason(err); got != want {
			t.Errorf("reason(%q) = %q, want %q", err, got, want)
		}
	}
}
