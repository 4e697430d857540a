package sources

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"

	"github.com/roleout/roleout/internal/testgit"
)

// sshSigner signs commits the way `git -c gpg.format=ssh` does.
type sshSigner struct{ s ssh.Signer }

func (g sshSigner) Sign(message io.Reader) ([]byte, error) {
	sig, err := sshsig.Sign(message, g.s, sshsig.HashSHA512, sshNamespace)
	if err != nil {
		return nil, err
	}
	return sshsig.Armor(sig), nil
}

func newSSHKey(t *testing.T) (ssh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return signer, "dev@example.com " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
}

func newPGPKey(t *testing.T, name string) (*openpgp.Entity, string) {
	t.Helper()
	e, err := openpgp.NewEntity(name, "", name+"@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := armor.Encode(&buf, openpgp.PublicKeyType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Serialize(w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return e, buf.String()
}

// pushSigned clones repo, commits a file signed with opts (or unsigned)
// and pushes it to main.
func pushSigned(t *testing.T, url, content string, opts git.CommitOptions) string {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainClone(dir, false, &git.CloneOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	if _, err := wt.Add("app.yaml"); err != nil {
		t.Fatal(err)
	}
	opts.Author = &object.Signature{Name: "dev", Email: "dev@example.com", When: time.Now()}
	h, err := wt.Commit(content, &opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Push(&git.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	return h.String()
}

func TestVerifySignedCommits(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "first", map[string]string{"app.yaml": "v: 0\n"})
	keys := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(keys, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	trustedPGP, trustedPGPPub := newPGPKey(t, "release")
	otherPGP, _ := newPGPKey(t, "mallory")
	trustedSSH, trustedSSHLine := newSSHKey(t)
	otherSSH, _ := newSSHKey(t)
	verify := &VerifyOptions{Mode: "head", PGPKeyFiles: []string{write("release.asc", trustedPGPPub)},
		SSHKeyFiles: []string{write("allowed_signers", "# who may sign\n"+trustedSSHLine+"\n")}}
	cases := []struct {
		name    string
		opts    git.CommitOptions
		wantErr []string
	}{
		{"PGP, trusted key", git.CommitOptions{SignKey: trustedPGP}, nil},
		{"SSH, trusted key", git.CommitOptions{Signer: sshSigner{trustedSSH}}, nil},
		{"unsigned", git.CommitOptions{}, []string{"is not trusted: it is not signed", "never applied"}},
		{"PGP, unknown key", git.CommitOptions{SignKey: otherPGP}, []string{"not from a trusted key", "signed by PGP key " + strings.ToUpper(otherPGP.PrimaryKey.KeyIdString())}},
		{"SSH, unknown key", git.CommitOptions{Signer: sshSigner{otherSSH}}, []string{"not one of source.verify.sshKeys", "signed by " + ssh.FingerprintSHA256(otherSSH.PublicKey())}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			commit := pushSigned(t, srv.RepoURL("config"), "v: "+string(rune('1'+i))+"\n", tc.opts)
			src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir(), Verify: verify})
			if err != nil {
				t.Fatal(err)
			}
			snap, err := src.Fetch(context.Background())
			if tc.wantErr == nil {
				if err != nil || snap.Revision.Commit != commit {
					t.Fatalf("a commit signed by a trusted key: %v %v", snap.Revision, err)
				}
				return
			}
			var ve *VerificationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v, want a VerificationError", err)
			}
			for _, want := range append(tc.wantErr, "commit main@sha1:"+commit[:7]) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if snap.Dir != "" {
				t.Error("an untrusted commit was handed on")
			}
		})
	}
}
