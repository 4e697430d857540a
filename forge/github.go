package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// GitHub is GitHub's REST API (and GitHub Enterprise's at
// https://HOST/api/v3), plain HTTP: roleout makes six calls, and a
// client library would bring far more than it uses. A pull request's
// comments are its issue's.
type GitHub struct {
	c           *client
	owner, repo string
	limit       int
}

// NewGitHub returns the API at baseURL (https://api.github.com) for
// repository owner/name. hc nil: a client with a 30 s timeout.
func NewGitHub(baseURL, repository string, token Token, limit int, hc *http.Client) (*GitHub, error) {
	owner, repo, ok := strings.Cut(repository, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return nil, fmt.Errorf("forge.repository: want owner/name for github, got %q", repository)
	}
	if limit <= 0 {
		limit = 65536
	}
	auth := func(h http.Header, t string) {
		h.Set("Authorization", "Bearer "+t)
		h.Set("Accept", "application/vnd.github+json")
		h.Set("X-GitHub-Api-Version", "2022-11-28")
	}
	return &GitHub{c: newClient(baseURL, token, auth, hc), owner: owner, repo: repo, limit: limit}, nil
}

var _ Provider = (*GitHub)(nil)

// Name returns github.
func (g *GitHub) Name() string { return "github" }

// CommentLimit is the most characters one comment holds.
func (g *GitHub) CommentLimit() int { return g.limit }

// PullRequest parses refs/pull/N/head.
func (g *GitHub) PullRequest(ref string) (int, bool) { return pullRequestNumber(ref, "refs/pull/") }

func (g *GitHub) repoPath() string {
	return "/repos/" + url.PathEscape(g.owner) + "/" + url.PathEscape(g.repo)
}

// Me is the token's user.
func (g *GitHub) Me(ctx context.Context) (string, error) {
	var u struct {
		Login string `json:"login"`
	}
	_, err := g.c.do(ctx, "GET", "/user", nil, &u)
	return u.Login, err
}

// SetStatus posts st on sha: states pending, success and failure.
func (g *GitHub) SetStatus(ctx context.Context, sha string, st Status) error {
	in := map[string]string{"state": st.State, "context": st.Context, "description": oneLine(st.Description, MaxDescription)}
	if st.TargetURL != "" {
		in["target_url"] = st.TargetURL
	}
	_, err := g.c.do(ctx, "POST", g.repoPath()+"/statuses/"+url.PathEscape(sha), in, nil)
	return err
}

// githubComment is an issue comment as GitHub writes it.
type githubComment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
	User struct {
		Login string `json:"login"`
	} `json:"user"`
}

func (c githubComment) comment() Comment {
	return Comment{ID: c.ID, Author: c.User.Login, Body: c.Body}
}

// Comments lists pr's comments, 100 a page.
func (g *GitHub) Comments(ctx context.Context, pr int) ([]Comment, error) {
	return comments(ctx, g.c, 100, func(page int) string {
		return fmt.Sprintf("%s/issues/%d/comments?per_page=100&page=%d", g.repoPath(), pr, page)
	}, func(c githubComment) (Comment, bool) { return c.comment(), true })
}

// CreateComment adds a comment to pr.
func (g *GitHub) CreateComment(ctx context.Context, pr int, body string) (Comment, error) {
	var c githubComment
	_, err := g.c.do(ctx, "POST", fmt.Sprintf("%s/issues/%d/comments", g.repoPath(), pr), map[string]string{"body": body}, &c)
	return c.comment(), err
}

// EditComment replaces comment id's body.
func (g *GitHub) EditComment(ctx context.Context, _ int, id int64, body string) error {
	_, err := g.c.do(ctx, "PATCH", fmt.Sprintf("%s/issues/comments/%d", g.repoPath(), id), map[string]string{"body": body}, nil)
	return err
}

// DeleteComment deletes comment id.
func (g *GitHub) DeleteComment(ctx context.Context, _ int, id int64) error {
	_, err := g.c.do(ctx, "DELETE", fmt.Sprintf("%s/issues/comments/%d", g.repoPath(), id), nil, nil)
	return err
}
