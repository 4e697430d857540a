package sources

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roleout/roleout/internal/testgit"
)

func TestFetchFollowsRefs(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	first := repo.MustCommit(t, "main", "first", map[string]string{"app/a.yaml": "a: 1\n"})
	second := repo.MustCommit(t, "main", "second", map[string]string{"app/a.yaml": "a: 2\n", "app/link": ""})
	if err := repo.Tag("v1.2.0", first); err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag("v1.3.1", second); err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag("v2.0.0", second); err != nil {
		t.Fatal(err)
	}
	if err := repo.PullRequest(3, first); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		ref        Ref
		wantCommit string
		wantRef    string
		wantA      string
	}{
		{"branch", Ref{Branch: "main"}, second, "main", "a: 2\n"},
		{"tag", Ref{Tag: "v1.2.0"}, first, "v1.2.0", "a: 1\n"},
		{"semver range", Ref{Semver: ">=1.2.0 <2.0.0"}, second, "v1.3.1", "a: 2\n"},
		{"pinned commit", Ref{Commit: first}, first, "", "a: 1\n"},
		{"name as branch", Ref{Name: "main"}, second, "main", "a: 2\n"},
		{"name as tag", Ref{Name: "v1.2.0"}, first, "v1.2.0", "a: 1\n"},
		{"name as full ref", Ref{Name: "refs/pull/3/head"}, first, "refs/pull/3/head", "a: 1\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: tc.ref, CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			snap, err := src.Fetch(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if snap.Revision.Commit != tc.wantCommit || snap.Revision.Ref != tc.wantRef {
				t.Errorf("revision = %s, want %s@%s", snap.Revision, tc.wantRef, tc.wantCommit)
			}
			got, err := os.ReadFile(filepath.Join(snap.Dir, "app", "a.yaml"))
			if err != nil || string(got) != tc.wantA {
				t.Errorf("app/a.yaml = %q, %v; want %q", got, err, tc.wantA)
			}
		})
	}
}

func TestFetchIdlePollTransfersNothing(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
	src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := src.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	srv.ResetCounts()
	if _, err := src.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	if got := srv.Counts("config"); got[testgit.RefsUpload] != 1 || got[testgit.UploadPack] != 0 {
		t.Errorf("idle poll requests = %v, want one ref listing and no upload-pack", got)
	}
	next := repo.MustCommit(t, "main", "second", map[string]string{"a.yaml": "a: 2\n"})
	srv.ResetCounts()
	snap, err := src.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Revision.Commit != next {
		t.Errorf("after a new commit, revision = %s, want %s", snap.Revision.Commit, next)
	}
	if got := srv.Counts("config"); got[testgit.UploadPack] != 1 {
		t.Errorf("new-commit poll requests = %v, want exactly one upload-pack", got)
	}
}

func TestFetchErrors(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{Username: "git", Password: "hunter2-secret"})
	repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	user, pass, wrong := write("user", "git\n"), write("pass", "hunter2-secret\n"), write("wrong", "nope\n")
	withPassword := strings.Replace(srv.RepoURL("config"), "http://", "http://git:hunter2-secret@", 1)
	cases := []struct {
		name    string
		opts    Options
		wantErr []string
	}{
		{"unreachable host", Options{URL: "http://127.0.0.1:1/config.git", Ref: Ref{Branch: "main"}}, []string{"fetch http://127.0.0.1:1/config.git", "connection refused"}},
		{"unknown branch", Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "nope"},
			Auth: Credentials{UsernameFile: user, PasswordFile: pass}}, []string{`branch "nope" not found`}},
		{"wrong password", Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"},
			Auth: Credentials{UsernameFile: user, PasswordFile: wrong}}, []string{"authentication failed with the user name in source.auth.usernameFile " + user +
			" and the password in source.auth.passwordFile " + wrong + ": correct it", "authentication required"}},
		{"malformed semver range", Options{URL: srv.RepoURL("config"), Ref: Ref{Semver: ">=1.2.x.y <<2"},
			Auth: Credentials{UsernameFile: user, PasswordFile: pass}}, []string{`invalid semver range ">=1.2.x.y <<2"`}},
		{"unknown tag", Options{URL: srv.RepoURL("config"), Ref: Ref{Tag: "v9.9.9"},
			Auth: Credentials{UsernameFile: user, PasswordFile: pass}}, []string{`tag "v9.9.9" not found on the remote: check source.tag`}},
		{"no tag matches", Options{URL: srv.RepoURL("config"), Ref: Ref{Semver: ">=9.0.0"},
			Auth: Credentials{UsernameFile: user, PasswordFile: pass}}, []string{`no tag on the remote matches semver range ">=9.0.0"`}},
		{"password in URL is redacted", Options{URL: withPassword, Ref: Ref{Branch: "nope"}}, []string{"git:redacted@", `branch "nope"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.CacheDir = t.TempDir()
			src, err := NewGitSource(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			_, err = src.Fetch(context.Background())
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error leaks the password: %q", err)
			}
		})
	}
}

func TestSnapshotIndex(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "first", map[string]string{"apps/web/k.yaml": "a\n", "apps/db/k.yaml": "b\n"})
	src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	first, err := src.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	repo.MustCommit(t, "main", "second", map[string]string{"apps/db/k.yaml": "c\n"})
	second, err := src.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	same := func(p string) bool {
		a, okA := first.Index.Hash(p)
		b, okB := second.Index.Hash(p)
		if !okA || !okB {
			t.Fatalf("%s missing from an index", p)
		}
		return a == b
	}
	if !same("apps/web/k.yaml") || !same("apps/web") {
		t.Error("an untouched file or directory changed hash")
	}
	if same("apps/db/k.yaml") || same("apps/db") || same("apps") || same("") {
		t.Error("a changed file, or a directory above it, kept its hash")
	}
	if _, ok := second.Index.Hash("apps/nothing"); ok {
		t.Error("a missing path has a hash")
	}
}

func TestListRefsAndForRef(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	main := repo.MustCommit(t, "main", "main", map[string]string{"a.yaml": "a: 1\n"})
	pr := repo.MustCommit(t, "pr/feature", "feature", map[string]string{"a.yaml": "a: 2\n"})
	for n, c := range map[int]string{1: main, 7: pr} {
		if err := repo.PullRequest(n, c); err != nil {
			t.Fatal(err)
		}
	}
	src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	heads, err := src.ListRefs(context.Background(), []string{"refs/pull/*/head", "refs/heads/pr/*"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Head{{Ref: "refs/heads/pr/feature", Commit: pr}, {Ref: "refs/pull/1/head", Commit: main}, {Ref: "refs/pull/7/head", Commit: pr}}
	if len(heads) != len(want) {
		t.Fatalf("heads = %v, want %v", heads, want)
	}
	for i := range want {
		if heads[i] != want[i] {
			t.Errorf("head %d = %v, want %v", i, heads[i], want[i])
		}
	}
	snap, err := src.ForRef("refs/pull/7/head").Fetch(context.Background())
	if err != nil || snap.Revision.Commit != pr {
		t.Fatalf("fetch refs/pull/7/head: %v %v", snap.Revision, err)
	}
	if got, _ := os.ReadFile(filepath.Join(snap.Dir, "a.yaml")); string(got) != "a: 2\n" {
		t.Errorf("PR checkout a.yaml = %q", got)
	}
}

func TestCredentialsFromEnvironment(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{Username: "git", Password: "env-s3cret"})
	repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
	t.Setenv("ROLEOUT_TEST_GIT_USER", "git")
	t.Setenv("ROLEOUT_TEST_GIT_PASS", "env-s3cret")
	src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir(),
		Auth: Credentials{UsernameEnv: "ROLEOUT_TEST_GIT_USER", PasswordEnv: "ROLEOUT_TEST_GIT_PASS"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Fetch(context.Background()); err != nil {
		t.Fatalf("fetch with credentials from the environment: %v", err)
	}
	missing, _ := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir(),
		Auth: Credentials{TokenEnv: "ROLEOUT_TEST_NO_SUCH_VAR"}})
	if _, err := missing.Fetch(context.Background()); err == nil || !strings.Contains(err.Error(), "ROLEOUT_TEST_NO_SUCH_VAR") {
		t.Errorf("a missing variable: %v", err)
	}
}

func TestIsAncestorDetectsForcePush(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	first := repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
	src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	old, err := src.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		repo.MustCommit(t, "main", fmt.Sprint("more ", i), map[string]string{"a.yaml": fmt.Sprintf("a: %d\n", i+2)})
	}
	ahead, err := src.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := src.IsAncestor(ctx, old.Revision, ahead.Revision); err != nil || !ok {
		t.Errorf("five commits ahead: IsAncestor = %v, %v; want a fast-forward", ok, err)
	}
	if _, err := repo.ForcePush("main", first, "rewritten", map[string]string{"a.yaml": "a: 99\n"}); err != nil {
		t.Fatal(err)
	}
	rewritten, err := src.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := src.IsAncestor(ctx, ahead.Revision, rewritten.Revision); err != nil || ok {
		t.Errorf("after a force-push: IsAncestor = %v, %v; want false", ok, err)
	}
}

// TestIsAncestorLongFastForward moves the branch 450 commits ahead, more
// than one deepening of the shallow cache reaches: it is a fast-forward,
// not a rewrite. Past the depth limit the answer is ErrAncestryUnknown.
func TestIsAncestorLongFastForward(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	first := repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 0\n"})
	src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	old, err := src.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	grow := func(n int) SourceRevision {
		t.Helper()
		if _, err := repo.Import("main", n, func(i int) map[string]string {
			return map[string]string{"a.yaml": fmt.Sprintf("a: %d\n", i+1)}
		}); err != nil {
			t.Fatal(err)
		}
		snap, err := src.Fetch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return snap.Revision
	}
	ahead := grow(450)
	if ok, err := src.IsAncestor(ctx, old.Revision, ahead); err != nil || !ok {
		t.Errorf("450 commits ahead: IsAncestor = %v, %v; want a fast-forward", ok, err)
	}
	rewritten, err := repo.ForcePush("main", first, "rewritten", map[string]string{"a.yaml": "a: 99\n"})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := src.Fetch(ctx)
	if err != nil || snap.Revision.Commit != rewritten {
		t.Fatalf("fetch the rewritten branch: %v %v", snap.Revision, err)
	}
	if ok, err := src.IsAncestor(ctx, ahead, snap.Revision); err != nil || ok {
		t.Errorf("after a force-push: IsAncestor = %v, %v; want false", ok, err)
	}
	src.ancestryLimit = 400
	further := grow(1000)
	ok, err := src.IsAncestor(ctx, snap.Revision, further)
	if !errors.Is(err, ErrAncestryUnknown) || ok {
		t.Errorf("1000 commits ahead with a limit of 400: IsAncestor = %v, %v; want ErrAncestryUnknown", ok, err)
	}
}
