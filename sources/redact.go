package sources

import (
	"net/url"
	"strings"

	"github.com/roleout/roleout/internal/secrets"
)

// RedactURL returns rawURL with its credentials redacted
// (secrets.RedactURL), for logs, errors and status.
func RedactURL(rawURL string) string { return secrets.RedactURL(rawURL) }

// redactError returns err with every occurrence of rawURL replaced by its
// redacted form, keeping the error chain for errors.Is.
func redactError(err error, rawURL string) error {
	if err == nil {
		return nil
	}
	msg := strings.ReplaceAll(err.Error(), rawURL, RedactURL(rawURL))
	if u, perr := url.Parse(rawURL); perr == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "redacted")
			msg = strings.ReplaceAll(msg, url.QueryEscape(pw), "redacted")
		}
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
