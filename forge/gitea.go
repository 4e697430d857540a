package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Gitea is the API of Gitea and Forgejo (/api/v1, plain HTTP: five calls
// do not need a client library). Its pull requests are issues: their
// comments are the issue's, and their heads refs/pull/N/head.
type Gitea struct {
	c           *client
	owner, repo string
	limit       int
}

// NewGitea returns the API of the Gitea (or Forgejo) at baseURL (its web
// URL) for repository owner/name. hc nil: a client with a 30 s timeout.
func NewGitea(baseURL, repository string, token Token, limit int, hc *http.Client) (*Gitea, error) {
	owner, repo, ok := strings.Cut(repository, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return nil, fmt.Errorf("forge.repository: want owner/name for gitea, got %q", repository)
	}
	if limit <= 0 {
		limit = 65536
	}
	auth := func(h http.Header, t string) { h.Set("Authorization", "token "+t) }
	return &Gitea{c: newClient(strings.TrimSuffix(baseURL, "/")+"/api/v1", token, auth, hc), owner: owner, repo: repo, limit: limit}, nil
}

var _ Provider = (*Gitea)(nil)

// Name returns gitea.
func (g *Gitea) Name() string { return "gitea" }

// CommentLimit is the most characters one comment holds.
func (g *Gitea) CommentLimit() int { return g.limit }

// PullRequest parses refs/pull/N/head.
func (g *Gitea) PullRequest(ref string) (int, bool) { return pullRequestNumber(ref, "refs/pull/") }

func (g *Gitea) repoPath() string {
	return "/repos/" + url.PathEscape(g.owner) + "/" + url.PathEscape(g.repo)
}

// Me is the token's user.
func (g *Gitea) Me(ctx context.Context) (string, error) {
	var u struct {
		Login string `json:"login"`
	}
	_, err := g.c.do(ctx, "GET", "/user", nil, &u)
	return u.Login, err
}

// giteaStates are Gitea's words for roleout's states.
var giteaStates = map[string]string{Pending: "pending", Success: "success", Failure: "failure"}

// SetStatus posts st on sha.
func (g *Gitea) SetStatus(ctx context.Context, sha string, st Status) error {
	in := map[string]string{"state": giteaStates[st.State], "context": st.Context, "description": oneLine(st.Description, MaxDescription)}
	if st.TargetURL != "" {
		in["target_url"] = st.TargetURL
	}
	_, err := g.c.do(ctx, "POST", g.repoPath()+"/statuses/"+url.PathEscape(sha), in, nil)
	return err
}

// giteaComment is a comment as Gitea's API writes it.
type giteaComment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
	User struct {
		Login string `json:"login"`
	} `json:"user"`
}

func (c giteaComment) comment() Comment { return Comment{ID: c.ID, Author: c.User.Login, Body: c.Body} }

// Comments lists pr's comments, a page of 50 at a time.
func (g *Gitea) Comments(ctx context.Context, pr int) ([]Comment, error) {
	return comments(ctx, g.c, 50, func(page int) string {
		return fmt.Sprintf("%s/issues/%d/comments?page=%d&limit=50", g.repoPath(), pr, page)
	}, func(c giteaComment) (Comment, bool) { return c.comment(), true })
}

// CreateComment adds a comment to pr.
func (g *Gitea) CreateComment(ctx context.Context, pr int, body string) (Comment, error) {
	var c giteaComment
	_, err := g.c.do(ctx, "POST", fmt.Sprintf("%s/issues/%d/comments", g.repoPath(), pr), map[string]string{"body": body}, &c)
	return c.comment(), err
}

// EditComment replaces comment id's body.
func (g *Gitea) EditComment(ctx context.Context, _ int, id int64, body string) error {
	_, err := g.c.do(ctx, "PATCH", fmt.Sprintf("%s/issues/comments/%d", g.repoPath(), id), map[string]string{"body": body}, nil)
	return err
}

// DeleteComment deletes comment id.
func (g *Gitea) DeleteComment(ctx context.Context, _ int, id int64) error {
	_, err := g.c.do(ctx, "DELETE", fmt.Sprintf("%s/issues/comments/%d", g.repoPath(), id), nil, nil)
	return err
}
