package forge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// GitLab is GitLab's REST API v4 (gitlab.com or self-hosted), plain
// HTTP. A merge request's comments are its notes (system notes left
// out), its heads refs/merge-requests/N/head.
type GitLab struct {
	c       *client
	project string // the project's full path, as one escaped segment
	limit   int
}

// NewGitLab returns the API of the GitLab at baseURL (its web URL:
// https://gitlab.com) for project group/name. hc nil: a client with a
// 30 s timeout.
func NewGitLab(baseURL, project string, token Token, limit int, hc *http.Client) (*GitLab, error) {
	if !strings.Contains(project, "/") || strings.HasPrefix(project, "/") || strings.HasSuffix(project, "/") {
		return nil, fmt.Errorf("forge.repository: want group/project for gitlab, got %q", project)
	}
	if limit <= 0 {
		limit = 1000000
	}
	auth := func(h http.Header, t string) { h.Set("PRIVATE-TOKEN", t) }
	return &GitLab{c: newClient(strings.TrimSuffix(baseURL, "/")+"/api/v4", token, auth, hc), project: url.PathEscape(project), limit: limit}, nil
}

var _ Provider = (*GitLab)(nil)

// Name returns gitlab.
func (g *GitLab) Name() string { return "gitlab" }

// CommentLimit is the most characters one note holds.
func (g *GitLab) CommentLimit() int { return g.limit }

// PullRequest parses refs/merge-requests/N/head.
func (g *GitLab) PullRequest(ref string) (int, bool) {
	return pullRequestNumber(ref, "refs/merge-requests/")
}

// Me is the token's user.
func (g *GitLab) Me(ctx context.Context) (string, error) {
	var u struct {
		Username string `json:"username"`
	}
	_, err := g.c.do(ctx, "GET", "/user", nil, &u)
	return u.Username, err
}

// gitlabStates are GitLab's words: a rollout in flight is running.
var gitlabStates = map[string]string{Pending: "running", Success: "success", Failure: "failed"}

// SetStatus posts st on sha. GitLab refuses a status that does not
// change (400 "Cannot transition status"): that is not an error.
func (g *GitLab) SetStatus(ctx context.Context, sha string, st Status) error {
	in := map[string]string{"state": gitlabStates[st.State], "name": st.Context, "description": oneLine(st.Description, MaxDescription)}
	if st.TargetURL != "" {
		in["target_url"] = st.TargetURL
	}
	_, err := g.c.do(ctx, "POST", "/projects/"+g.project+"/statuses/"+url.PathEscape(sha), in, nil)
	var fe *Error
	if errors.As(err, &fe) && fe.Status == http.StatusBadRequest && strings.Contains(fe.Message, "Cannot transition status") {
		return nil
	}
	return err
}

// gitlabNote is a note as GitLab writes it.
type gitlabNote struct {
	ID     int64  `json:"id"`
	Body   string `json:"body"`
	System bool   `json:"system"`
	Author struct {
		Username string `json:"username"`
	} `json:"author"`
}

func (n gitlabNote) comment() Comment {
	return Comment{ID: n.ID, Author: n.Author.Username, Body: n.Body}
}

func (g *GitLab) notesPath(mr int) string {
	return fmt.Sprintf("/projects/%s/merge_requests/%d/notes", g.project, mr)
}

// Comments lists mr's notes, oldest first, 100 a page; system notes
// (GitLab's own, "added 1 commit") are not comments.
func (g *GitLab) Comments(ctx context.Context, mr int) ([]Comment, error) {
	return comments(ctx, g.c, 100, func(page int) string {
		return fmt.Sprintf("%s?sort=asc&order_by=created_at&per_page=100&page=%d", g.notesPath(mr), page)
	}, func(n gitlabNote) (Comment, bool) { return n.comment(), !n.System })
}

// CreateComment adds a note to mr.
func (g *GitLab) CreateComment(ctx context.Context, mr int, body string) (Comment, error) {
	var n gitlabNote
	_, err := g.c.do(ctx, "POST", g.notesPath(mr), map[string]string{"body": body}, &n)
	return n.comment(), err
}

// EditComment replaces note id's body.
func (g *GitLab) EditComment(ctx context.Context, mr int, id int64, body string) error {
	_, err := g.c.do(ctx, "PUT", fmt.Sprintf("%s/%d", g.notesPath(mr), id), map[string]string{"body": body}, nil)
	return err
}

// DeleteComment deletes note id.
func (g *GitLab) DeleteComment(ctx context.Context, mr int, id int64) error {
	_, err := g.c.do(ctx, "DELETE", fmt.Sprintf("%s/%d", g.notesPath(mr), id), nil, nil)
	return err
}
