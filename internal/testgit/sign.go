package testgit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// SigningKey is a key the git program signs fixture commits and tags
// with (and verifies them with), made fresh for one test.
type SigningKey struct {
	// Format is git's gpg.format: "openpgp" or "ssh".
	Format string
	// ID is git's user.signingkey: the PGP key's fingerprint, or the
	// file of the SSH private key.
	ID string
	// Public is the armored PGP public key, or the SSH public key in
	// authorized_keys form ("ssh-ed25519 AAAA… comment").
	Public string
	// PrivateKeyFile holds the private key without a passphrase: an
	// armored PGP secret key or an OpenSSH private key.
	PrivateKeyFile string
	// Principal is the PGP key's e-mail address, or the principal the
	// SSH key is allowed to sign as.
	Principal string

	gnupgHome string
}

// NewPGPKey makes an ed25519 PGP key for "name <email>" with gpg in a
// temporary GNUPGHOME (gpg's agent for it stops with t).
func NewPGPKey(t testing.TB, name, email string) SigningKey {
	t.Helper()
	home := shortTempDir(t, "gnupg")
	t.Cleanup(func() {
		cmd := exec.Command("gpgconf", "--kill", "gpg-agent")
		cmd.Env = append(os.Environ(), "GNUPGHOME="+home)
		_ = cmd.Run()
		_ = os.RemoveAll(home)
	})
	gpg := func(args ...string) string {
		t.Helper()
		out, err := run(append(os.Environ(), "GNUPGHOME="+home), "gpg",
			append([]string{"--batch", "--pinentry-mode", "loopback", "--passphrase", ""}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	gpg("--quick-gen-key", name+" <"+email+">", "ed25519", "sign", "never")
	var fpr string
	for _, line := range strings.Split(gpg("--with-colons", "--list-secret-keys", email), "\n") {
		if f := strings.Split(line, ":"); len(f) > 9 && f[0] == "fpr" {
			fpr = f[9]
			break
		}
	}
	if fpr == "" {
		t.Fatalf("gpg made no key for %s", email)
	}
	k := SigningKey{Format: "openpgp", ID: fpr, Public: gpg("--armor", "--export", fpr), Principal: email, gnupgHome: home}
	k.PrivateKeyFile = filepath.Join(t.TempDir(), "secret.asc")
	write(t, k.PrivateKeyFile, []byte(gpg("--armor", "--export-secret-keys", fpr)), 0o600)
	return k
}

// NewSSHKey makes an ed25519 SSH key with ssh-keygen, allowed to sign as
// principal.
func NewSSHKey(t testing.TB, principal string) SigningKey {
	t.Helper()
	file := filepath.Join(t.TempDir(), "id_ed25519")
	if _, err := run(os.Environ(), "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", principal, "-f", file); err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(file + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return SigningKey{Format: "ssh", ID: file, Public: strings.TrimSpace(string(pub)), PrivateKeyFile: file, Principal: principal}
}

// gitConfig returns the git options that sign with k.
func (k SigningKey) gitConfig() []string {
	return []string{"-c", "gpg.format=" + k.Format, "-c", "user.signingkey=" + k.ID}
}

// env returns the environment gpg needs to find k.
func (k SigningKey) env() []string {
	if k.gnupgHome == "" {
		return nil
	}
	return []string{"GNUPGHOME=" + k.gnupgHome}
}

// CommitSigned is Commit with the commit signed by key, as
// `git commit -S` signs it.
func (r *Repo) CommitSigned(branch, msg string, files map[string]string, key SigningKey) (string, error) {
	return r.change(branch, msg, &key, r.writeFiles(files))
}

// TagSigned creates an annotated tag name at commit in the bare
// repository, signed by key (`git tag -s`).
func (r *Repo) TagSigned(name, commit string, key SigningKey) error {
	args := append(key.gitConfig(), "-C", r.bare, "tag", "-s", "-m", "tag "+name, name, commit)
	_, err := r.gitEnv(key.env(), args...)
	return err
}

// VerifyCommit checks rev's signature with the git program
// (`git verify-commit`), trusting key alone.
func (r *Repo) VerifyCommit(rev string, key SigningKey) error {
	args := []string{"-c", "gpg.format=" + key.Format}
	if key.Format == "ssh" {
		allowed := filepath.Join(r.server.Root, ".allowed_signers")
		line := key.Principal + ` namespaces="git" ` + key.Public + "\n"
		if err := os.WriteFile(allowed, []byte(line), 0o600); err != nil {
			return err
		}
		args = append(args, "-c", "gpg.ssh.allowedSignersFile="+allowed)
	}
	_, err := r.gitEnv(key.env(), append(args, "-C", r.bare, "verify-commit", rev)...)
	return err
}

// Identity returns the author and committer of rev as "name <email>".
func (r *Repo) Identity(rev string) (author, committer string, err error) {
	out, err := r.git("-C", r.bare, "log", "-1", "--format=%an <%ae>%n%cn <%ce>", rev)
	if err != nil {
		return "", "", err
	}
	a, c, _ := strings.Cut(strings.TrimSpace(out), "\n")
	return a, c, nil
}

// shortTempDir makes a directory under the system's temporary directory
// that is removed with t: gpg's agent socket path must stay short.
func shortTempDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func run(env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
