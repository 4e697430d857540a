package testgit

import (
	"os"
	"path/filepath"
	"testing"
)

// New starts a server for test t in a temporary directory and stops it
// when t ends. It fails t on error.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := Start(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// MustRepo creates repository name, failing t on error.
func (s *Server) MustRepo(t testing.TB, name string) *Repo {
	t.Helper()
	r, err := s.NewRepo(name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Attach returns a Server value for repositories under root that another
// process serves at url: fixture helpers work on it, but it does not
// serve and counts nothing.
func Attach(root, url string) *Server {
	return &Server{Root: root, URL: url}
}

// Fixture starts a server with opts and makes its repository "config".
func Fixture(t testing.TB, opts Options) (*Server, *Repo) {
	t.Helper()
	srv := New(t, opts)
	return srv, srv.MustRepo(t, "config")
}

// MustCommit commits files on branch with msg and returns the commit,
// failing t on an error.
func (r *Repo) MustCommit(t testing.TB, branch, msg string, files map[string]string) string {
	t.Helper()
	sha, err := r.Commit(branch, msg, files)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// WriteFile writes content to name under dir, mode 0600, and returns its
// path, failing t on an error.
func WriteFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
