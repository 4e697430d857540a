package testgit

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHServer is a real sshd on a loopback port that serves the server's
// repositories over git's SSH transport, with a fresh host key.
type SSHServer struct {
	// Addr is 127.0.0.1:port.
	Addr string
	// User is the account git logs in as: the user running the test.
	User string
	// HostKey is the server's public host key.
	HostKey ssh.PublicKey
	root    string
}

// StartSSH starts sshd (Debian's openssh-server; make test installs it)
// for t, accepting clientKey, serving s's repositories. It stops with t.
func (s *Server) StartSSH(t testing.TB, clientKey ssh.PublicKey) *SSHServer {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		if sshd = "/usr/sbin/sshd"; !fileExists(sshd) {
			t.Fatal("sshd not found: install openssh-server (make test does: hack/ensure-test-tools.sh)")
		}
	}
	dir := t.TempDir()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(hostPriv, "")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "host_ed25519"), pem.EncodeToMemory(block), 0o600)
	write(t, filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(clientKey), 0o600)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cfg := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile %s
`, port, filepath.Join(dir, "host_ed25519"), filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "sshd.pid"))
	write(t, filepath.Join(dir, "sshd_config"), []byte(cfg), 0o600)
	_ = os.MkdirAll("/run/sshd", 0o755) // privilege separation directory, when root
	cmd := exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	logFile, err := os.Create(filepath.Join(dir, "sshd.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logFile.Close()
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "sshd.log"))
			t.Fatalf("sshd did not start:\n%s", log)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	return &SSHServer{Addr: addr, User: u.Username, HostKey: signer.PublicKey(), root: s.Root}
}

// RepoURL returns the ssh:// URL of repository name.
func (s *SSHServer) RepoURL(name string) string {
	return "ssh://" + s.User + "@" + s.Addr + filepath.Join(s.root, repoKey(name))
}

// KnownHostsLine returns the known_hosts line for the server's host key.
func (s *SSHServer) KnownHostsLine() string {
	return knownhosts.Line([]string{knownhosts.Normalize(s.Addr)}, s.HostKey)
}

func write(t testing.TB, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
