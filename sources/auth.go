package sources

import (
	"fmt"
	"os"
	"strings"

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
	auth, err := gitssh.NewPublicKeysFromFile(user, c.SSHKeyFile, "")
	if err != nil {
		return nil, fmt.Errorf("read source.auth.sshKeyFile: %w", err)
	}
	callback, err := knownhosts.New(c.KnownHostsFile)
	if err != nil {
		return nil, fmt.Errorf("read source.auth.knownHostsFile: %w", err)
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
// variable.
func readSecret(path, env, what string) (string, error) {
	if path == "" && env != "" {
		v, ok := os.LookupEnv(env)
		if !ok || v == "" {
			return "", fmt.Errorf("source.auth: environment variable %s (the %s) is not set", env, what)
		}
		return strings.TrimSpace(v), nil
	}
	if path == "" {
		return "", fmt.Errorf("source.auth: a %s file or environment variable is required with the other credentials", what)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s file: %w", what, err)
	}
	return strings.TrimSpace(string(data)), nil
}
