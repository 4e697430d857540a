package statusstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/sources"
)

func newFixture(t *testing.T, opts testgit.Options) (*testgit.Server, *testgit.Repo) {
	t.Helper()
	srv := testgit.New(t, opts)
	return srv, srv.MustRepo(t, "config")
}

func mustCommit(t *testing.T, r *testgit.Repo, branch, msg string, files map[string]string) string {
	t.Helper()
	sha, err := r.Commit(branch, msg, files)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// writeTestFile writes content to name under dir and returns its path.
func writeTestFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBearerToken pushes status to a server that takes only a bearer
// token, from source.auth.tokenFile and tokenEnv.
func TestBearerToken(t *testing.T) {
	const token = "tok-s3cret-value"
	srv, repo := newFixture(t, testgit.Options{Token: token})
	mustCommit(t, repo, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ROLEOUT_TEST_TOKEN", token)
	for name, auth := range map[string]sources.Credentials{"file": {TokenFile: file}, "env": {TokenEnv: "ROLEOUT_TEST_TOKEN"}} {
		b := New(Options{URL: srv.RepoURL("config"), Auth: auth, Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "r@example.com"})
		if _, err := b.Commit(context.Background(), map[string][]byte{name + "/status.yaml": []byte("ok\n")}, "roleout: "+name); err != nil {
			t.Errorf("push status with a bearer token from %s: %v", name, err)
		}
		b.Close()
	}
	got, err := repo.Show("roleout/status", "env/status.yaml")
	if err != nil || got != "ok\n" {
		t.Errorf("status pushed with the token: %q %v", got, err)
	}
}
