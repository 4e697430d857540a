package sources

import (
	"net/url"
	"strings"
)

// RedactURL returns rawURL with any password or token in its user info
// replaced by "redacted", for logs, errors and status: an HTTP(S) user
// name without a password counts as a token; an SSH user name is kept. A URL that does not
// parse is returned with everything between "://" and "@" redacted.
func RedactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		scheme, rest, ok := strings.Cut(rawURL, "://")
		if at := strings.LastIndex(rest, "@"); ok && at >= 0 {
			return scheme + "://redacted@" + rest[at+1:]
		}
		return rawURL
	}
	if u.User == nil {
		return rawURL
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "redacted")
	} else if u.Scheme == "http" || u.Scheme == "https" {
		// A lone user name over HTTP(S) is usually a token.
		u.User = url.User("redacted")
	}
	return u.String()
}

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
