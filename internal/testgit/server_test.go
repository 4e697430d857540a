package testgit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
)

func newRepo(t *testing.T, s *Server) (*Repo, string) {
	t.Helper()
	r := s.MustRepo(t, "config")
	sha, err := r.Commit("main", "first", map[string]string{"apps/web/kustomization.yaml": "resources: []\n"})
	if err != nil {
		t.Fatal(err)
	}
	return r, sha
}

func TestCloneOverHTTP(t *testing.T) {
	cases := []struct {
		name    string
		server  Options
		auth    transport.AuthMethod
		wantErr error
	}{
		{name: "no auth", server: Options{}},
		{name: "basic auth", server: Options{Username: "git", Password: "s3cret"},
			auth: &githttp.BasicAuth{Username: "git", Password: "s3cret"}},
		{name: "wrong password", server: Options{Username: "git", Password: "s3cret"},
			auth: &githttp.BasicAuth{Username: "git", Password: "wrong"}, wantErr: transport.ErrAuthenticationRequired},
		{name: "missing credentials", server: Options{Username: "git", Password: "s3cret"},
			wantErr: transport.ErrAuthenticationRequired},
		{name: "bearer token", server: Options{Token: "t0ken"}, auth: &githttp.TokenAuth{Token: "t0ken"}},
		{name: "wrong bearer token", server: Options{Token: "t0ken"},
			auth: &githttp.TokenAuth{Token: "wrong"}, wantErr: transport.ErrAuthenticationRequired},
		{name: "basic auth where only a token is accepted", server: Options{Token: "t0ken"},
			auth: &githttp.BasicAuth{Username: "git", Password: "t0ken"}, wantErr: transport.ErrAuthenticationRequired},
		{name: "token or basic auth, token given", server: Options{Username: "git", Password: "s3cret", Token: "t0ken"},
			auth: &githttp.TokenAuth{Token: "t0ken"}},
		{name: "token or basic auth, basic given", server: Options{Username: "git", Password: "s3cret", Token: "t0ken"},
			auth: &githttp.BasicAuth{Username: "git", Password: "s3cret"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t, tc.server)
			r, sha := newRepo(t, s)
			opts := &git.CloneOptions{URL: r.URL(), ReferenceName: plumbing.NewBranchReferenceName("main"), SingleBranch: true}
			if tc.auth != nil {
				opts.Auth = tc.auth
			}
			repo, err := git.PlainClone(t.TempDir(), false, opts)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("clone error = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("clone: %v", err)
			}
			head, err := repo.Head()
			if err != nil {
				t.Fatal(err)
			}
			if head.Hash().String() != sha {
				t.Errorf("cloned head = %s, want %s", head.Hash(), sha)
			}
			if n := s.Count("config", RefsUpload); n != 1 {
				t.Errorf("ref listings = %d, want 1", n)
			}
			if n := s.Count("config", UploadPack); n != 1 {
				t.Errorf("upload-pack requests = %d, want 1", n)
			}
		})
	}
}

func TestPushOverHTTP(t *testing.T) {
	s := New(t, Options{Username: "git", Password: "s3cret"})
	r, _ := newRepo(t, s)
	auth := &githttp.BasicAuth{Username: "git", Password: "s3cret"}
	dir := t.TempDir()
	repo, err := git.PlainClone(dir, false, &git.CloneOptions{URL: r.URL(), Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "status.yaml"), []byte("phase: Ready\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("status.yaml"); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "roleout", Email: "roleout@example.com", When: time.Now()}
	pushed, err := wt.Commit("roleout: status", &git.CommitOptions{Author: sig})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Push(&git.PushOptions{Auth: auth}); err != nil {
		t.Fatalf("push: %v", err)
	}
	got, err := r.Rev("refs/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if got != pushed.String() {
		t.Errorf("server main = %s, want pushed commit %s", got, pushed)
	}
	content, err := r.Show("main", "status.yaml")
	if err != nil || content != "phase: Ready\n" {
		t.Errorf("status.yaml on server = %q, %v", content, err)
	}
	if n := s.Count("config", ReceivePack); n != 1 {
		t.Errorf("receive-pack requests = %d, want 1", n)
	}
}

func TestFixtureRefs(t *testing.T) {
	s := New(t, Options{})
	r, first := newRepo(t, s)
	second, err := r.Commit("main", "second", map[string]string{"apps/web/a.yaml": "a: 1\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.PullRequest(7, second); err != nil {
		t.Fatal(err)
	}
	if err := r.Tag("v1.2.0", first); err != nil {
		t.Fatal(err)
	}
	rewritten, err := r.ForcePush("main", first, "rewritten", map[string]string{"apps/web/b.yaml": "b: 1\n"})
	if err != nil {
		t.Fatal(err)
	}
	remote := git.NewRemote(memory.NewStorage(), &gitconfig.RemoteConfig{Name: "origin", URLs: []string{r.URL()}})
	refs, err := remote.List(&git.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ref := range refs {
		if ref.Type() == plumbing.HashReference {
			got[ref.Name().String()] = ref.Hash().String()
		}
	}
	if got["refs/heads/main"] != rewritten {
		t.Errorf("main = %s, want force-pushed %s", got["refs/heads/main"], rewritten)
	}
	if got["refs/pull/7/head"] != second {
		t.Errorf("refs/pull/7/head = %s, want %s", got["refs/pull/7/head"], second)
	}
	if _, ok := got["refs/tags/v1.2.0"]; !ok {
		t.Errorf("tag v1.2.0 missing from %v", got)
	}
	if _, err := r.Show("main", "apps/web/a.yaml"); err == nil || !strings.Contains(err.Error(), "a.yaml") {
		t.Errorf("a.yaml should be gone from rewritten main, got err %v", err)
	}
}
