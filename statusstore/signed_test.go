package statusstore

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/sources"
)

// TestSignedStatusCommits signs status commits with an SSH and a PGP key
// (made by ssh-keygen and gpg), checks the signatures the way a verifying
// reader would and with `git verify-commit`, and checks that author and
// committer come from the options.
func TestSignedStatusCommits(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
	cases := []struct {
		name   string
		key    testgit.SigningKey
		verify func(file string) *sources.VerifyOptions
	}{
		{"SSH", testgit.NewSSHKey(t, "roleout@example.com"), func(f string) *sources.VerifyOptions { return &sources.VerifyOptions{SSHKeyFiles: []string{f}} }},
		{"PGP", testgit.NewPGPKey(t, "roleout", "roleout@example.com"), func(f string) *sources.VerifyOptions { return &sources.VerifyOptions{PGPKeyFiles: []string{f}} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			branch := "roleout/status-" + strings.ToLower(tc.name)
			b := New(Options{URL: srv.RepoURL("config"), Branch: branch,
				AuthorName: "roleout bot " + tc.name, AuthorEmail: "bot-" + strings.ToLower(tc.name) + "@example.com", SigningKeyFile: tc.key.PrivateKeyFile})
			hash, err := b.Commit(context.Background(), map[string][]byte{"web/status.yaml": []byte("a\n")}, "roleout: signed")
			if err != nil {
				t.Fatal(err)
			}
			verify := tc.verify(testgit.WriteFile(t, t.TempDir(), "trusted", tc.key.Public+"\n"))
			verify.Mode = "head"
			src, err := sources.NewGitSource(sources.Options{URL: srv.RepoURL("config"), Ref: sources.Ref{Branch: branch}, CacheDir: t.TempDir(), Verify: verify})
			if err != nil {
				t.Fatal(err)
			}
			if snap, err := src.Fetch(context.Background()); err != nil || snap.Revision.Commit != hash {
				t.Errorf("the status commit does not verify: %v %v", snap.Revision, err)
			}
			if err := repo.VerifyCommit(hash, tc.key); err != nil {
				t.Errorf("git verify-commit: %v", err)
			}
			author, committer, err := repo.Identity(hash)
			if err != nil {
				t.Fatal(err)
			}
			want := "roleout bot " + tc.name + " <bot-" + strings.ToLower(tc.name) + "@example.com>"
			if diff := cmp.Diff([]string{want, want}, []string{author, committer}); diff != "" {
				t.Errorf("author, committer (-want +got)\n%s", diff)
			}
		})
	}
}
