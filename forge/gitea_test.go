package forge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roleout/roleout/internal/testforge"
)

// TestGiteaProvider drives the Gitea provider against a real Gitea:
// the token's user, a status per context on a pull request's head (the
// newest of a context wins), and the living comment: created in parts,
// edited in place when it changes, left alone when it does not, made
// again when deleted, replaced when a person edited it, its stale parts
// deleted when it shrinks, and a person's comment quoting the marker
// never touched.
func TestGiteaProvider(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Gitea")
	}
	g := testforge.StartGitea(t)
	repo := g.CreateRepo(t, "provider")
	repo.Commit(t, "main", "one", map[string]string{"a.txt": "1"})
	head := repo.Commit(t, "feature", "two", map[string]string{"a.txt": "2"})
	pr := g.OpenPullRequest(t, "provider", "feature", "<b>a pull request</b>")
	ctx := context.Background()

	p, err := NewGitea(g.URL, g.User+"/provider", Token{File: tokenFile(t, g.Token)}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := p.PullRequest(fmt.Sprintf("refs/pull/%d/head", pr)); !ok || n != pr {
		t.Errorf("PullRequest(refs/pull/%d/head) = %d %v", pr, n, ok)
	}
	me, err := p.Me(ctx)
	if err != nil || me != g.User {
		t.Fatalf("Me = %q %v", me, err)
	}
	for _, st := range []Status{
		{Context: Context("shop", ""), State: Pending, Description: "rolling out"},
		{Context: Context("shop", ""), State: Failure, Description: "role b failed: " + strings.Repeat("x", 300)},
		{Context: Context("shop", "eu"), State: Success, Description: "rolled out"},
	} {
		if err := p.SetStatus(ctx, head, st); err != nil {
			t.Fatal(err)
		}
	}
	latest := map[string]testforge.Status{}
	for _, s := range g.Statuses(t, "provider", head) {
		if s.ID > latest[s.Context].ID {
			latest[s.Context] = s
		}
	}
	if s := latest["roleout/shop"]; s.State != "failure" || len(s.Description) > MaxDescription || !strings.HasPrefix(s.Description, "role b failed: xxx") {
		t.Errorf("roleout/shop: %+v, want the failure, its description clipped", s)
	}
	if s := latest["roleout/shop/eu"]; s.State != "success" {
		t.Errorf("roleout/shop/eu: %+v", s)
	}

	// A person's comment quoting the marker is theirs.
	human, err := p.CreateComment(ctx, pr, "I saw "+Marker+" somewhere")
	if err != nil {
		t.Fatal(err)
	}
	parts := pack([]string{strings.Repeat("a", 60), strings.Repeat("b", 60), strings.Repeat("c", 60)}, 100)
	if len(parts) != 3 {
		t.Fatalf("%d parts", len(parts))
	}
	sync := func(parts CommentParts) SyncResult {
		t.Helper()
		res, err := SyncComment(ctx, p, me, pr, parts)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ours := func() []testforge.Comment {
		var out []testforge.Comment
		for _, c := range g.Comments(t, "provider", pr) {
			if c.ID != human.ID {
				out = append(out, c)
			}
		}
		return out
	}
	if res := sync(parts); res.Created != 3 || len(ours()) != 3 {
		t.Errorf("first sync: %+v, %d comments", res, len(ours()))
	}
	first := ours()
	if res := sync(parts); res.Unchanged != 3 || res.Created+res.Edited+res.Deleted != 0 {
		t.Errorf("the same parts again: %+v, want nothing posted", res)
	}
	// A new head: edited in place, same comments.
	parts = pack([]string{strings.Repeat("A", 60), strings.Repeat("b", 60), strings.Repeat("c", 60)}, 100)
	if res := sync(parts); res.Edited != 1 || res.Unchanged != 2 {
		t.Errorf("one part changed: %+v", res)
	}
	if now := ours(); len(now) != 3 || now[0].ID != first[0].ID || !strings.Contains(now[0].Body, "AAAA") {
		t.Errorf("after the edit: %+v, want the same three comments, the first edited", now)
	}
	// A person edits part 2 and deletes part 3: both come back as roleout wrote them.
	if err := g.API("PATCH", fmt.Sprintf("/repos/%s/provider/issues/comments/%d", g.User, first[1].ID), map[string]string{"body": first[1].Body + "\nedited"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := g.API("DELETE", fmt.Sprintf("/repos/%s/provider/issues/comments/%d", g.User, first[2].ID), nil, nil); err != nil {
		t.Fatal(err)
	}
	if res := sync(parts); res.Edited != 1 || res.Created != 1 || len(res.HumanEdited) != 1 || res.HumanEdited[0] != first[1].ID {
		t.Errorf("after a person's edit and delete: %+v", res)
	}
	// The preview shrinks to one part: the others go.
	one := pack([]string{"only"}, 100)
	if res := sync(one); res.Deleted != 2 || res.Edited != 1 {
		t.Errorf("shrunk to one part: %+v", res)
	}
	if now := ours(); len(now) != 1 || now[0].ID != first[0].ID || now[0].Body != one[0] {
		t.Errorf("after shrinking: %+v", now)
	}
	found := false
	for _, c := range g.Comments(t, "provider", pr) {
		found = found || c.ID == human.ID
	}
	if !found {
		t.Error("a person's comment quoting the marker was deleted")
	}
}

// tokenFile writes token to a file of the test's and returns its path.
func tokenFile(t *testing.T, token string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
