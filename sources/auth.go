package sources

import (
	"fmt"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
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
}

// authMethod reads the credentials' files and returns the go-git
// transport auth, or nil for anonymous access.
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
