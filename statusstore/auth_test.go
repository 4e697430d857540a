package statusstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/sources"
)

// TestBearerToken pushes status to a server that takes only a bearer
// token, from source.auth.tokenFile and tokenEnv.
func TestBearerToken(t *testing.T) {
	const token = "tok-s3cret-value"
	srv, repo := testgit.Fixture(t, testgit.Options{Token: token})
	repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
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
