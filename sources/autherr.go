package sources

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"golang.org/x/crypto/ssh/knownhosts"
)

// AuthError is the git server's refusal of the source's credentials (or
// of their absence), or an SSH host key that known_hosts does not hold.
// It names the credential the source used, never its value, and says
// what to fix.
type AuthError struct {
	// Problem is what went wrong: "authentication failed", "access
	// denied" or "host key not trusted".
	Problem string
	// Using names the credential: "the token in source.auth.tokenFile
	// /secrets/token", "no credentials".
	Using string
	// Fix says what to change.
	Fix string
	Err error
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("%s with %s: %s: %s", e.Problem, e.Using, e.Fix, strings.TrimSpace(e.Err.Error()))
}

func (e *AuthError) Unwrap() error { return e.Err }

// explainAuth turns a transport error that means the server refused the
// credentials into an AuthError that names them; other errors are
// returned as they are.
func explainAuth(err error, rawURL string, c Credentials) error {
	var ae *AuthError
	if err == nil || errors.As(err, &ae) {
		return err
	}
	using := credentialsUsed(rawURL, c)
	var keyErr *knownhosts.KeyError
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired):
		fix := "correct it; it is read again at the next poll"
		if using == "no credentials" {
			fix = "the server requires credentials: set source.auth.usernameFile and passwordFile, or tokenFile (or their …Env forms)"
		}
		return &AuthError{Problem: "authentication failed", Using: using, Fix: fix, Err: err}
	case errors.Is(err, transport.ErrAuthorizationFailed):
		return &AuthError{Problem: "access denied", Using: using,
			Fix: "the server knows the credential but refuses it this repository: grant it read access (and write access to the status branch)", Err: err}
	case errors.As(err, &keyErr) || strings.Contains(err.Error(), "knownhosts: key mismatch") || strings.Contains(err.Error(), "knownhosts: key is unknown"):
		return &AuthError{Problem: "host key not trusted", Using: "source.auth.knownHostsFile " + c.KnownHostsFile,
			Fix: "the server's host key is not in the file: add it (ssh-keyscan, checked out of band) or, if the key changed, find out why before replacing it", Err: err}
	case isSSH(rawURL) && strings.Contains(err.Error(), "unable to authenticate"):
		return &AuthError{Problem: "authentication failed", Using: using,
			Fix: "the server does not accept this key for the user: add its public key to the server or correct the file", Err: err}
	}
	return err
}

// credentialsUsed names the credential a request to rawURL sends, by the
// config fields it comes from.
func credentialsUsed(rawURL string, c Credentials) string {
	if isSSH(rawURL) {
		return "the key in source.auth.sshKeyFile " + c.SSHKeyFile
	}
	from := func(field, file, env string) string {
		if file != "" {
			return fmt.Sprintf("source.auth.%sFile %s", field, file)
		}
		return fmt.Sprintf("source.auth.%sEnv $%s", field, env)
	}
	switch {
	case c.TokenFile != "" || c.TokenEnv != "":
		return "the bearer token in " + from("token", c.TokenFile, c.TokenEnv)
	case c.UsernameFile != "" || c.PasswordFile != "" || c.UsernameEnv != "" || c.PasswordEnv != "":
		return "the user name in " + from("username", c.UsernameFile, c.UsernameEnv) +
			" and the password in " + from("password", c.PasswordFile, c.PasswordEnv)
	}
	if u, err := url.Parse(rawURL); err == nil && u.User != nil {
		return "the credentials in source.url"
	}
	return "no credentials"
}
