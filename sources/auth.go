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
}

// authMethod reads the credentials' files and returns the go-git
// transport auth, or nil for anonymous access.
func authMethod(c Credentials) (transport.AuthMethod, error) {
	if c.TokenFile != "" {
		tok, err := readSecret(c.TokenFile, "token")
		if err != nil {
			return nil, err
		}
		return &githttp.TokenAuth{Token: tok}, nil
	}
	if c.UsernameFile == "" && c.PasswordFile == "" {
		return nil, nil
	}
	user, err := readSecret(c.UsernameFile, "username")
	if err != nil {
		return nil, err
	}
	pass, err := readSecret(c.PasswordFile, "password")
	if err != nil {
		return nil, err
	}
	return &githttp.BasicAuth{Username: user, Password: pass}, nil
}

func readSecret(path, what string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("source.auth: a %s file is required with the other credentials", what)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s file: %w", what, err)
	}
	return strings.TrimSpace(string(data)), nil
}
