package sources

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"

	"github.com/roleout/roleout/internal/testgit"
)

func TestParseAllowedSigner(t *testing.T) {
	signer, _ := newSSHKey(t)
	key := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	type parsed struct {
		Principals, Namespaces  string
		ValidAfter, ValidBefore string
	}
	cases := []struct {
		name    string
		line    string
		want    parsed
		wantErr string
	}{
		{"authorized_keys form", key + " dev@laptop", parsed{}, ""},
		{"authorized_keys form with options", "no-pty,command=\"echo a b\" " + key, parsed{}, ""},
		{"principals", "dev@example.com,*@ops.example.com " + key, parsed{Principals: "dev@example.com,*@ops.example.com"}, ""},
		{"principals and namespaces", `dev@example.com namespaces="git,file" ` + key, parsed{Principals: "dev@example.com", Namespaces: "git|file"}, ""},
		{"options alone", `namespaces="git" ` + key, parsed{Namespaces: "git"}, ""},
		{"validity, UTC and local", `dev@example.com valid-after="20240102Z",valid-before="202501020304" ` + key,
			parsed{Principals: "dev@example.com", ValidAfter: "2024-01-02T00:00:00Z", ValidBefore: time.Date(2025, 1, 2, 3, 4, 0, 0, time.Local).Format(time.RFC3339)}, ""},
		{"a principal that starts like a key type", "ssh-admin@example.com " + key, parsed{Principals: "ssh-admin@example.com"}, ""},
		{"cert-authority", "*@example.com cert-authority " + key, parsed{}, "cert-authority lines are not supported"},
		{"bad time", `dev@example.com valid-after="2024" ` + key, parsed{}, `option valid-after: "2024" is not YYYYMMDD[HHMM[SS]][Z]`},
		{"no key", "dev@example.com namespaces=git", parsed{}, "no SSH public key"},
		{"too many fields", "a b c " + key, parsed{}, "want principals, options and a key, got 3 fields"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseAllowedSigner(tc.line)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			format := func(t time.Time) string {
				if t.IsZero() {
					return ""
				}
				return t.Format(time.RFC3339)
			}
			got := parsed{Principals: a.principals, Namespaces: strings.Join(a.namespaces, "|"), ValidAfter: format(a.validAfter), ValidBefore: format(a.validBefore)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if string(a.key.Marshal()) != string(signer.PublicKey().Marshal()) {
				t.Error("wrong key")
			}
		})
	}
}

// namespaceSigner signs commits as git does, but in another namespace.
type namespaceSigner struct {
	s         ssh.Signer
	namespace string
}

func (g namespaceSigner) Sign(message io.Reader) ([]byte, error) {
	sig, err := sshsig.Sign(message, g.s, sshsig.HashSHA512, g.namespace)
	if err != nil {
		return nil, err
	}
	return sshsig.Armor(sig), nil
}

// TestSSHSignatureNamespace refuses a commit whose SSH signature was made
// for another namespace than git's, even by a trusted key.
func TestSSHSignatureNamespace(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "first", map[string]string{"app.yaml": "v: 0\n"})
	signer, line := newSSHKey(t)
	keys := testgit.WriteFile(t, t.TempDir(), "allowed", line+"\n")
	commit := pushSigned(t, srv.RepoURL("config"), "v: 1\n", git.CommitOptions{Signer: namespaceSigner{signer, "file"}})
	src, err := NewGitSource(Options{URL: srv.RepoURL("config"), Ref: Ref{Branch: "main"}, CacheDir: t.TempDir(),
		Verify: &VerifyOptions{Mode: "head", SSHKeyFiles: []string{keys}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Fetch(context.Background())
	var ve *VerificationError
	want := `commit main@sha1:` + commit[:7] + ` is not trusted: its SSH signature is for namespace "file"; git signs in namespace "git"`
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant it to contain %q", err, want)
	}
}
