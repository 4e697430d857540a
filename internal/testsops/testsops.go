package testsops

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"filippo.io/age"

	"github.com/roleout/roleout/internal/testcluster"
)

// Key is an age key pair.
type Key struct {
	// Identity is the private key file's content: a comment with the
	// public key, then AGE-SECRET-KEY-1….
	Identity string
	// Recipient is the public key, age1….
	Recipient string
}

// NewKey makes an age key pair.
func NewKey(t testing.TB) Key {
	t.Helper()
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	return Key{Identity: "# public key: " + id.Recipient().String() + "\n" + id.String() + "\n", Recipient: id.Recipient().String()}
}

// Binary returns the sops program: $ROLEOUT_SOPS, else bin/sops of the
// module. A missing program fails the test, saying how to build it.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("ROLEOUT_SOPS"); p != "" {
		return p
	}
	root, err := testcluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "bin", "sops")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: make build-sops builds it (make test does)", p)
	}
	return p
}

// Encrypt runs sops encrypt for recipient on a file named name holding
// data, with extra flags (--encrypted-regex, --input-type), in an empty
// environment (no SOPS_* variable, no .sops.yaml, a home of its own), and
// returns what it wrote.
func Encrypt(t testing.TB, recipient, name string, data []byte, extra ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, name)
	if err := os.WriteFile(in, data, 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "sops-config.yaml")
	if err := os.WriteFile(empty, []byte("creation_rules: [{path_regex: \".*\"}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--config", empty, "encrypt", "--age", recipient}, extra...)
	cmd := exec.Command(Binary(t), append(args, in)...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("sops encrypt %s: %v: %s", name, err, stderr.String())
	}
	return stdout.Bytes()
}

// EncryptSecret encrypts a Secret manifest whole, as Flux's guide does:
// its data and stringData values, for recipient.
func EncryptSecret(t testing.TB, recipient string, manifest string) []byte {
	t.Helper()
	return Encrypt(t, recipient, "secret.yaml", []byte(manifest), "--encrypted-regex", "^(data|stringData)$")
}
