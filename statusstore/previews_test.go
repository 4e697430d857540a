package statusstore

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// TestPreviews reads apps' previews of a ref from the branch, only their
// previews folders, and reads again when the head moves.
func TestPreviews(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
	b := New(Options{URL: srv.RepoURL("config"), Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "r@example.com", CacheDir: t.TempDir()})
	defer b.Close()
	ctx := context.Background()
	preview := func(app, ref, commit string) []byte {
		data, err := json.Marshal(status.Preview{App: app, Ref: ref, Commit: commit})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	name := status.PreviewName("refs/pull/7/head")
	files := map[string][]byte{
		status.PreviewPath("web", name, ".json"): preview("web", "refs/pull/7/head", "aaa"),
		status.PreviewPath("db", name, ".json"):  preview("db", "refs/pull/7/head", "bbb"),
		status.StatusPath("web"):                 []byte("not: read\n"),
	}
	if _, err := b.Commit(ctx, files, "roleout: previews"); err != nil {
		t.Fatal(err)
	}
	got, err := b.Previews(ctx, []string{"web", "db", "api"}, "refs/pull/7/head")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].App != "web" || got[1].App != "db" || got[0].Commit != "aaa" {
		t.Fatalf("previews %+v, want web's and db's", got)
	}
	if b.previews.files[status.StatusPath("web")] != nil {
		t.Error("Previews read an app's records, not only its previews folder")
	}
	if _, err := b.Commit(ctx, map[string][]byte{status.PreviewPath("web", name, ".json"): preview("web", "refs/pull/7/head", "ccc")}, "roleout: preview"); err != nil {
		t.Fatal(err)
	}
	got, err = b.Previews(ctx, []string{"web", "db"}, "refs/pull/7/head")
	if err != nil || len(got) != 2 || got[0].Commit != "ccc" {
		t.Fatalf("after the head moved: %+v %v, want web's new preview", got, err)
	}
}
