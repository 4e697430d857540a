package sources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Credentials names the files holding git credentials. They are read at
// every use, so a rotated secret takes effect at the next poll.
type Credentials struct {
	UsernameFile string
	PasswordFile string
	// TokenFile holds a bearer token (HTTPS).
	TokenFile string
	// UsernameEnv, PasswordEnv and TokenEnv name environment variables,
	// used for a credential whose file is not set.
	UsernameEnv, PasswordEnv, TokenEnv string
	// SSHKeyFile holds the private key for ssh:// and user@host: URLs;
	// KnownHostsFile the server's host keys, which are always checked.
	SSHKeyFile, KnownHostsFile string
}

// isSSH reports whether a repository URL uses git's SSH transport.
func isSSH(url string) bool {
	if strings.HasPrefix(url, "ssh://") {
		return true
	}
	at, colon := strings.Index(url, "@"), strings.Index(url, ":")
	return !strings.Contains(url, "://") && at > 0 && colon > at
}

// sshAuth reads the SSH key and known_hosts files: host key checking is
// always on.
func sshAuth(url string, c Credentials) (transport.AuthMethod, error) {
	if c.SSHKeyFile == "" {
		return nil, fmt.Errorf("source.auth.sshKeyFile is required for the SSH URL %s", RedactURL(url))
	}
	if c.KnownHostsFile == "" {
		return nil, fmt.Errorf("source.auth.knownHostsFile is required for the SSH URL %s: host keys are always checked", RedactURL(url))
	}
	user := "git"
	if ep, err := transport.NewEndpoint(url); err == nil && ep.User != "" {
		user = ep.User
	}
	key, err := readConfigFile("source.auth.sshKeyFile", c.SSHKeyFile)
	if err != nil {
		return nil, err
	}
	auth, err := gitssh.NewPublicKeys(user, key, "")
	if err != nil {
		return nil, fmt.Errorf("source.auth.sshKeyFile %s: not an unencrypted SSH private key: %w", c.SSHKeyFile, err)
	}
	if _, err := readConfigFile("source.auth.knownHostsFile", c.KnownHostsFile); err != nil {
		return nil, err
	}
	callback, err := knownhosts.New(c.KnownHostsFile)
	if err != nil {
		return nil, fmt.Errorf("source.auth.knownHostsFile %s: not a known_hosts file: %w", c.KnownHostsFile, err)
	}
	auth.HostKeyCallback = callback
	return auth, nil
}

// authMethod reads the credentials' files and returns the go-git
// transport auth for url, or nil for anonymous access.
func authFor(url string, c Credentials) (transport.AuthMethod, error) {
	if isSSH(url) {
		return sshAuth(url, c)
	}
	return authMethod(c)
}

// authMethod returns the HTTP(S) auth of the credentials, or nil for
// anonymous access.
func authMethod(c Credentials) (transport.AuthMethod, error) {
	if c.TokenFile != "" || c.TokenEnv != "" {
		tok, err := readSecret(c.TokenFile, c.TokenEnv, "token")
		if err != nil {
			return nil, err
		}
		return &githttp.TokenAuth{Token: tok}, nil
	}
	if c.UsernameFile == "" && c.PasswordFile == "" && c.UsernameEnv == "" && c.PasswordEnv == "" {
		return nil, nil
	}
	user, err := readSecret(c.UsernameFile, c.UsernameEnv, "username")
	if err != nil {
		return nil, err
	}
	pass, err := readSecret(c.PasswordFile, c.PasswordEnv, "password")
	if err != nil {
		return nil, err
	}
	return &githttp.BasicAuth{Username: user, Password: pass}, nil
}

// readSecret reads a credential from its file, else its environment
// variable; field is the credential's config name (password).
func readSecret(path, env, field string) (string, error) {
	if path == "" && env != "" {
		v, ok := os.LookupEnv(env)
		if !ok || v == "" {
			return "", fmt.Errorf("source.auth.%sEnv: environment variable %s is not set: set it or use source.auth.%sFile", field, env, field)
		}
		return strings.TrimSpace(v), nil
	}
	if path == "" {
		return "", fmt.Errorf("source.auth: a %s is required with the other credentials: set source.auth.%sFile or %sEnv", field, field, field)
	}
	data, err := readConfigFile("source.auth."+field+"File", path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// readConfigFile reads the file a config field names. Its error names the
// field and the file and says what is wrong with it: missing, a
// directory, not readable.
func readConfigFile(field, path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		return data, nil
	}
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Err // the path is in the message already
	}
	fix := "point the field at a readable file"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fix = "fix the path or create the file"
	case errors.Is(err, fs.ErrPermission):
		fix = "fix the file's owner or mode so that the agent can read it"
	case errors.Is(err, syscall.EISDIR):
		fix = "name a file, not a directory"
	}
	return nil, fmt.Errorf("read %s %s: %w (%s)", field, path, cause, fix)
}

// Transport returns the auth method c gives for url, for a git operation
// the caller makes itself (the status store's fetches and pushes).
func Transport(url string, c Credentials) (transport.AuthMethod, error) {
	return authFor(url, c)
}

// ExplainError turns err from a git operation on url with c into the
// error a user reads: an auth failure explained, every secret redacted.
func ExplainError(err error, url string, c Credentials) error {
	return redactError(explainAuth(err, url, c), url)
}
