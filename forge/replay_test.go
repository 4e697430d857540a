package forge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// exchange is one API call as the forge's documentation writes it: the
// request roleout must send (method, the path as sent, the headers and
// JSON fields the documentation requires) and the documented answer.
type exchange struct {
	method, path string
	headers      map[string]string
	fields       map[string]string // JSON body fields and their values
	status       int
	answer       string
	answerHeader map[string]string
}

// replay is a server that answers the exchanges in order and fails the
// test on any request that is not the next one.
type replay struct {
	t    *testing.T
	mu   sync.Mutex
	want []exchange
}

func (r *replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.want) == 0 {
		r.t.Errorf("unexpected %s %s", req.Method, req.URL.RequestURI())
		http.Error(w, "unexpected", 500)
		return
	}
	x := r.want[0]
	r.want = r.want[1:]
	if req.Method != x.method || req.URL.RequestURI() != x.path {
		r.t.Errorf("request %s %s, want %s %s", req.Method, req.URL.RequestURI(), x.method, x.path)
	}
	for k, v := range x.headers {
		if got := req.Header.Get(k); got != v {
			r.t.Errorf("%s %s: header %s = %q, want %q", x.method, x.path, k, got, v)
		}
	}
	if len(x.fields) > 0 {
		var body map[string]any
		data, _ := io.ReadAll(req.Body)
		if err := json.Unmarshal(data, &body); err != nil {
			r.t.Errorf("%s %s: body %q is not JSON: %v", x.method, x.path, data, err)
		}
		for k, v := range x.fields {
			if got := fmt.Sprint(body[k]); got != v {
				r.t.Errorf("%s %s: field %s = %q, want %q", x.method, x.path, k, got, v)
			}
		}
		if ct := req.Header.Get("Content-Type"); ct != "application/json" {
			r.t.Errorf("%s %s: Content-Type %q", x.method, x.path, ct)
		}
	}
	for k, v := range x.answerHeader {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(x.status)
	_, _ = io.WriteString(w, x.answer)
}

func (r *replay) done() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.want {
		r.t.Errorf("never asked: %s %s", x.method, x.path)
	}
}

// page is a JSON array of n comments by author, ids from first.
func page(n int, first int64, author, authorField string) string {
	var items []string
	for i := range n {
		items = append(items, fmt.Sprintf(`{"id":%d,"body":"c%d",%q:{%q:%q}}`, first+int64(i), first+int64(i), authorField, map[string]string{"user": "login", "author": "username"}[authorField], author))
	}
	return "[" + strings.Join(items, ",") + "]"
}

// drive makes every call roleout makes of p, in the order of the
// exchanges below.
func drive(t *testing.T, p Provider, pr int) {
	t.Helper()
	ctx := context.Background()
	if me, err := p.Me(ctx); err != nil || me != "roleout-bot" {
		t.Errorf("Me = %q %v", me, err)
	}
	if err := p.SetStatus(ctx, "6dcb09b5b57875f334f61aebed695e2e4193db5e", Status{Context: "roleout/shop", State: Pending, Description: "rolling out: wave 1 of 3", TargetURL: "https://roleout.example/apps/shop"}); err != nil {
		t.Error(err)
	}
	if err := p.SetStatus(ctx, "6dcb09b5b57875f334f61aebed695e2e4193db5e", Status{Context: "roleout/shop/eu", State: Failure, Description: "role b failed"}); err != nil {
		t.Error(err)
	}
	if cs, err := p.Comments(ctx, pr); err != nil || len(cs) != 101 || cs[100].Author != "roleout-bot" || cs[100].ID != 101 {
		t.Errorf("Comments: %d, %v", len(cs), err)
	}
	if c, err := p.CreateComment(ctx, pr, "<!-- roleout -->\nhello"); err != nil || c.ID != 1 {
		t.Errorf("CreateComment: %+v %v", c, err)
	}
	if err := p.EditComment(ctx, pr, 1, "<!-- roleout -->\nedited"); err != nil {
		t.Error(err)
	}
	if err := p.DeleteComment(ctx, pr, 1); err != nil {
		t.Error(err)
	}
}

// TestGitHubAgainstItsDocumentation replays GitHub's REST API as its
// documentation writes it (docs.github.com/rest: "Get the authenticated
// user", "Create a commit status", "List issue comments", "Create an
// issue comment", "Update an issue comment", "Delete an issue comment",
// and "Rate limits for the REST API"), on a GitHub Enterprise path.
func TestGitHubAgainstItsDocumentation(t *testing.T) {
	auth := map[string]string{"Authorization": "Bearer ghp_token", "Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
	const repo = "/api/v3/repos/octo-org/config"
	r := &replay{t: t, want: []exchange{
		{method: "GET", path: "/api/v3/user", headers: auth, status: 200, answer: `{"login":"roleout-bot","id":1}`},
		{method: "POST", path: repo + "/statuses/6dcb09b5b57875f334f61aebed695e2e4193db5e", headers: auth, status: 201,
			fields: map[string]string{"state": "pending", "context": "roleout/shop", "description": "rolling out: wave 1 of 3", "target_url": "https://roleout.example/apps/shop"},
			answer: `{"id":1,"state":"pending","context":"roleout/shop"}`},
		{method: "POST", path: repo + "/statuses/6dcb09b5b57875f334f61aebed695e2e4193db5e", headers: auth, status: 201,
			fields: map[string]string{"state": "failure", "context": "roleout/shop/eu", "description": "role b failed"}, answer: `{"id":2}`},
		{method: "GET", path: repo + "/issues/7/comments?per_page=100&page=1", headers: auth, status: 200, answer: page(100, 1, "someone", "user")},
		{method: "GET", path: repo + "/issues/7/comments?per_page=100&page=2", headers: auth, status: 200, answer: page(1, 101, "roleout-bot", "user")},
		{method: "POST", path: repo + "/issues/7/comments", headers: auth, status: 201, fields: map[string]string{"body": "<!-- roleout -->\nhello"},
			answer: `{"id":1,"body":"<!-- roleout -->\nhello","user":{"login":"roleout-bot"}}`},
		{method: "PATCH", path: repo + "/issues/comments/1", headers: auth, status: 200, fields: map[string]string{"body": "<!-- roleout -->\nedited"}, answer: `{"id":1}`},
		{method: "DELETE", path: repo + "/issues/comments/1", headers: auth, status: 204},
	}}
	srv := httptest.NewServer(r)
	defer srv.Close()
	p, err := NewGitHub(srv.URL+"/api/v3", "octo-org/config", Token{File: tokenFile(t, "ghp_token")}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := p.PullRequest("refs/pull/7/head"); !ok || n != 7 || p.CommentLimit() != 65536 {
		t.Errorf("PullRequest, CommentLimit: %d %v %d", n, ok, p.CommentLimit())
	}
	drive(t, p, 7)
	r.done()

	// Refusals as the documentation describes them.
	reset := time.Now().Add(90 * time.Second).Unix()
	refusal(t, p, 403, map[string]string{"x-ratelimit-remaining": "0", "x-ratelimit-reset": fmt.Sprint(reset)}, `{"message":"API rate limit exceeded for user ID 1."}`, true, 80*time.Second)
	refusal(t, p, 429, map[string]string{"retry-after": "30"}, `{"message":"You have exceeded a secondary rate limit."}`, true, 30*time.Second)
	refusal(t, p, 401, nil, `{"message":"Bad credentials"}`, false, 0)
	refusal(t, p, 404, nil, `{"message":"Not Found"}`, false, 0)
	refusal(t, p, 403, nil, `{"message":"Resource not accessible by personal access token"}`, false, 0)
}

// TestGitLabAgainstItsDocumentation replays GitLab's REST API v4 as its
// documentation writes it (docs.gitlab.com/api: "users" (current user),
// "commits" (set the pipeline status of a commit), "notes" (merge
// request notes: list, create, modify, delete), "rest" (pagination,
// rate limits)), on a self-hosted GitLab.
func TestGitLabAgainstItsDocumentation(t *testing.T) {
	auth := map[string]string{"PRIVATE-TOKEN": "glpat-token"}
	const project = "/api/v4/projects/group%2Fsub%2Fconfig"
	r := &replay{t: t, want: []exchange{
		{method: "GET", path: "/api/v4/user", headers: auth, status: 200, answer: `{"id":1,"username":"roleout-bot"}`},
		{method: "POST", path: project + "/statuses/6dcb09b5b57875f334f61aebed695e2e4193db5e", headers: auth, status: 201,
			fields: map[string]string{"state": "running", "name": "roleout/shop", "description": "rolling out: wave 1 of 3", "target_url": "https://roleout.example/apps/shop"},
			answer: `{"id":93,"status":"running","name":"roleout/shop"}`},
		{method: "POST", path: project + "/statuses/6dcb09b5b57875f334f61aebed695e2e4193db5e", headers: auth, status: 201,
			fields: map[string]string{"state": "failed", "name": "roleout/shop/eu", "description": "role b failed"}, answer: `{"id":94}`},
		{method: "GET", path: project + "/merge_requests/7/notes?sort=asc&order_by=created_at&per_page=100&page=1", headers: auth, status: 200,
			answer: page(100, 1, "someone", "author"), answerHeader: map[string]string{"X-Next-Page": "2"}},
		{method: "GET", path: project + "/merge_requests/7/notes?sort=asc&order_by=created_at&per_page=100&page=2", headers: auth, status: 200,
			answer: strings.Replace(page(2, 101, "roleout-bot", "author"), `{"id":102`, `{"system":true,"id":102`, 1)},
		{method: "POST", path: project + "/merge_requests/7/notes", headers: auth, status: 201, fields: map[string]string{"body": "<!-- roleout -->\nhello"},
			answer: `{"id":1,"body":"<!-- roleout -->\nhello","author":{"username":"roleout-bot"},"system":false}`},
		{method: "PUT", path: project + "/merge_requests/7/notes/1", headers: auth, status: 200, fields: map[string]string{"body": "<!-- roleout -->\nedited"}, answer: `{"id":1}`},
		{method: "DELETE", path: project + "/merge_requests/7/notes/1", headers: auth, status: 204},
		// A status that does not change: GitLab refuses it, which is no error.
		{method: "POST", path: project + "/statuses/6dcb09b5b57875f334f61aebed695e2e4193db5e", headers: auth, status: 400,
			answer: `{"message":"Cannot transition status via :run from :running (Reason(s): Status cannot transition via \"run\")"}`},
	}}
	srv := httptest.NewServer(r)
	defer srv.Close()
	p, err := NewGitLab(srv.URL, "group/sub/config", Token{File: tokenFile(t, "glpat-token")}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := p.PullRequest("refs/merge-requests/7/head"); !ok || n != 7 || p.CommentLimit() != 1000000 {
		t.Errorf("PullRequest, CommentLimit: %d %v %d", n, ok, p.CommentLimit())
	}
	if _, ok := p.PullRequest("refs/pull/7/head"); ok {
		t.Error("a GitHub pull-request ref read as a merge request")
	}
	drive(t, p, 7)
	if err := p.SetStatus(context.Background(), "6dcb09b5b57875f334f61aebed695e2e4193db5e", Status{Context: "roleout/shop", State: Pending}); err != nil {
		t.Errorf("a status that does not change: %v", err)
	}
	r.done()
	reset := time.Now().Add(60 * time.Second).Unix()
	refusal(t, p, 429, map[string]string{"RateLimit-Remaining": "0", "RateLimit-Reset": fmt.Sprint(reset)}, `{"message":"Retry later"}`, true, 50*time.Second)
	refusal(t, p, 401, nil, `{"message":"401 Unauthorized"}`, false, 0)
}

// refusal checks that an answer of status with headers is an *Error that
// is Temporary as want says, waits at least wait, and never carries the
// token.
func refusal(t *testing.T, p Provider, status int, headers map[string]string, body string, temporary bool, wait time.Duration) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	var q Provider
	switch v := p.(type) {
	case *GitHub:
		c := *v
		c.c = newClient(srv.URL, v.c.token, v.c.auth, nil)
		q = &c
	case *GitLab:
		c := *v
		c.c = newClient(srv.URL, v.c.token, v.c.auth, nil)
		q = &c
	}
	err := q.SetStatus(context.Background(), "abc", Status{Context: "roleout/x", State: Success})
	var fe *Error
	if !errors.As(err, &fe) || fe.Status != status || Temporary(err) != temporary || fe.RetryAfter < wait {
		t.Errorf("%d %v: %v (temporary %v, wait %v); want temporary %v, wait at least %v", status, headers, err, Temporary(err), fe, temporary, wait)
	}
	if strings.Contains(err.Error(), "token") && strings.Contains(err.Error(), "ghp_token") {
		t.Errorf("the error carries the token: %v", err)
	}
}

// TestUnreachableForge: a forge that does not answer is a temporary
// failure (tried again later), and its error does not carry the token.
func TestUnreachableForge(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	p, err := NewGitHub(url, "o/r", Token{File: tokenFile(t, "ghp_secret_token")}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = p.SetStatus(context.Background(), "abc", Status{Context: "roleout/x", State: Success})
	if err == nil || !Temporary(err) || strings.Contains(err.Error(), "ghp_secret_token") {
		t.Errorf("an unreachable forge: %v (temporary %v)", err, Temporary(err))
	}
}
