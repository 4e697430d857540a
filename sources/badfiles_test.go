package sources

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"github.com/go-git/go-git/v5/plumbing/object"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/roleout/roleout/internal/testgit"
)

// unreadableFile returns a file the test process may not read: a file of
// mode 000, or, for root (who reads those), a write-only sysctl, which
// the kernel refuses to open for reading even to root.
func unreadableFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "unreadable")
	if os.Geteuid() == 0 {
		p = "/proc/sys/vm/drop_caches"
	} else if err := os.WriteFile(p, []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(p); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("reading %s: %v, want permission denied", p, err)
	}
	return p
}

// TestUnreadableKeyFiles points every key and credential field at a
// missing file, a directory and an unreadable file: each error names the
// field and the file and says what is wrong.
func TestUnreadableKeyFiles(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
	dir := t.TempDir()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	block, _ := ssh.MarshalPrivateKey(priv, "")
	sshKey := testgit.WriteFile(t, dir, "id_ed25519", string(pem.EncodeToMemory(block)))
	user := testgit.WriteFile(t, dir, "user", "git\n")
	sshURL := "ssh://git@127.0.0.1:1/config.git"
	bad := map[string]struct{ path, want string }{
		"missing file":  {filepath.Join(dir, "missing"), "no such file or directory (fix the path or create the file)"},
		"directory":     {dir, "is a directory (name a file, not a directory)"},
		"no permission": {unreadableFile(t), "permission denied (fix the file's owner or mode so that the agent can read it)"},
	}
	fields := []struct {
		field string
		run   func(path string) error
	}{
		{"source.auth.usernameFile", fetchWith(srv.RepoURL("config"), func(p string, o *Options) { o.Auth = Credentials{UsernameFile: p, PasswordFile: user} })},
		{"source.auth.passwordFile", fetchWith(srv.RepoURL("config"), func(p string, o *Options) { o.Auth = Credentials{UsernameFile: user, PasswordFile: p} })},
		{"source.auth.tokenFile", fetchWith(srv.RepoURL("config"), func(p string, o *Options) { o.Auth = Credentials{TokenFile: p} })},
		{"source.auth.sshKeyFile", fetchWith(sshURL, func(p string, o *Options) { o.Auth = Credentials{SSHKeyFile: p, KnownHostsFile: user} })},
		{"source.auth.knownHostsFile", fetchWith(sshURL, func(p string, o *Options) { o.Auth = Credentials{SSHKeyFile: sshKey, KnownHostsFile: p} })},
		{"source.verify.pgpKeys", fetchWith(srv.RepoURL("config"), func(p string, o *Options) { o.Verify = &VerifyOptions{PGPKeyFiles: []string{p}} })},
		{"source.verify.sshKeys", fetchWith(srv.RepoURL("config"), func(p string, o *Options) { o.Verify = &VerifyOptions{SSHKeyFiles: []string{p}} })},
		{"status.signingKeyFile", func(p string) error {
			return SignCommit(p, &object.Commit{Message: "roleout: signed"})
		}},
	}
	for _, f := range fields {
		for kind, b := range bad {
			t.Run(f.field+"/"+kind, func(t *testing.T) {
				err := f.run(b.path)
				want := "read " + f.field + " " + b.path + ": " + b.want
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v\nwant it to contain %q", err, want)
				}
			})
		}
	}
}

// fetchWith returns a function that fetches url's main branch with the
// options set for a key file path.
func fetchWith(url string, set func(path string, o *Options)) func(string) error {
	return func(path string) error {
		dir, err := os.MkdirTemp("", "roleout-cache")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o := Options{URL: url, Ref: Ref{Branch: "main"}, CacheDir: dir}
		set(path, &o)
		src, err := NewGitSource(o)
		if err != nil {
			return err
		}
		_, err = src.Fetch(context.Background())
		return err
	}
}
