package testgit

import "testing"

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
