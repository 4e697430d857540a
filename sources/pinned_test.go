package sources

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/internal/testgit"
)

// setGitConfig sets a git configuration value in the bare repository at dir.
func setGitConfig(t *testing.T, dir, key, value string) {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "config", key, value)
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git config %s %s: %v: %s", key, value, err, out)
	}
}

// pinnedResult is what one pinned fetch did: the file it checked out (or
// the error), the upload-packs it cost, whether the pinned commit's parent
// came along, and the requests of a second, idle fetch.
type pinnedResult struct {
	A          string
	Err        bool
	Uploads    int
	HasParent  bool
	IdleCounts map[testgit.Endpoint]int
}

// TestPinnedCommitAfterShallowFetch pins commits of branch main in a cache
// that already holds a depth-1 fetch of main's tip, and so lacks them: on
// a server that allows reachable SHA-1s in wants (as GitHub does) the
// commit alone is fetched by hash; on one that refuses, main is deepened
// until the commit arrives. A commit already in the cache costs nothing,
// and an unknown one is an error naming it.
func TestPinnedCommitAfterShallowFetch(t *testing.T) {
	servers := []struct {
		name     string
		allowSHA bool
		want     map[string]pinnedResult
	}{
		{"server allows reachable SHA-1 wants", true, map[string]pinnedResult{
			"parent of the tip":       {A: "a: 298\n", Uploads: 1},
			"250 commits below":       {A: "a: 49\n", Uploads: 1},
			"the tip, already cached": {A: "a: 299\n"},
			// Refused by the server, then main deepened to 200 and 400.
			"unknown commit": {Err: true, Uploads: 3},
		}},
		{"server refuses SHA-1 wants", false, map[string]pinnedResult{
			"parent of the tip":       {A: "a: 298\n", Uploads: 1, HasParent: true},
			"250 commits below":       {A: "a: 49\n", Uploads: 2, HasParent: true},
			"the tip, already cached": {A: "a: 299\n"},
			"unknown commit":          {Err: true, Uploads: 2},
		}},
	}
	for _, sv := range servers {
		t.Run(sv.name, func(t *testing.T) {
			srv, repo := testgit.Fixture(t, testgit.Options{})
			if sv.allowSHA {
				setGitConfig(t, repo.BarePath(), "uploadpack.allowReachableSHA1InWant", "true")
			}
			if _, err := repo.Import("main", 300, func(i int) map[string]string {
				return map[string]string{"a.yaml": fmt.Sprintf("a: %d\n", i)}
			}); err != nil {
				t.Fatal(err)
			}
			cases := []struct{ name, rev string }{
				{"parent of the tip", "main~1"},
				{"250 commits below", "main~250"},
				{"the tip, already cached", "main"},
				{"unknown commit", ""},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					commit := strings.Repeat("1", 40)
					if tc.rev != "" {
						var err error
						if commit, err = repo.Rev(tc.rev); err != nil {
							t.Fatal(err)
						}
					}
					got := fetchPinnedAfterBranch(t, srv, commit)
					if diff := cmp.Diff(sv.want[tc.name], got); diff != "" {
						t.Errorf("pinned %s (-want +got):\n%s", commit, diff)
					}
				})
			}
		})
	}
}

// fetchPinnedAfterBranch fetches main into a new cache, then commit
// pinned into the same cache, twice.
func fetchPinnedAfterBranch(t *testing.T, srv *testgit.Server, commit string) pinnedResult {
	t.Helper()
	ctx := context.Background()
	cache := t.TempDir()
	branch, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := branch.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	pinned, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Commit: commit}, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	srv.ResetCounts()
	snap, err := pinned.Fetch(ctx)
	var got pinnedResult
	got.Uploads = srv.Counts("config")[testgit.UploadPack]
	if err != nil {
		for _, part := range []string{commit, "no branch or tag", "check source.commit"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not say %q", err, part)
			}
		}
		got.Err = true
		return got
	}
	if snap.Revision != (SourceRevision{Commit: commit}) {
		t.Errorf("revision = %v, want sha1:%s", snap.Revision, commit)
	}
	a, err := os.ReadFile(filepath.Join(snap.Dir, "a.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got.A = string(a)
	repo, err := pinned.open()
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		t.Fatal(err)
	}
	_, parentErr := repo.CommitObject(c.ParentHashes[0])
	got.HasParent = parentErr == nil
	srv.ResetCounts()
	if _, err := pinned.Fetch(ctx); err != nil {
		t.Fatalf("idle fetch: %v", err)
	}
	if counts := srv.Counts("config"); len(counts) > 0 {
		got.IdleCounts = counts
	}
	return got
}
