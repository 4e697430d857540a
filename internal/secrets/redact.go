package secrets

import (
	"net/url"
	"strings"
)

// RedactURL returns rawURL with any password or token in its user info
// replaced by "redacted", and the values of its query (signed URLs carry
// tokens there) too, for logs, errors and status: an HTTP(S) user name
// without a password counts as a token; an SSH user name is kept. A URL
// that does not parse is returned with everything between "://" and "@"
// redacted.
func RedactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		scheme, rest, ok := strings.Cut(rawURL, "://")
		if at := strings.LastIndex(rest, "@"); ok && at >= 0 {
			return scheme + "://redacted@" + rest[at+1:]
		}
		return rawURL
	}
	if u.User == nil && u.RawQuery == "" {
		return rawURL
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "redacted")
		} else if u.Scheme == "http" || u.Scheme == "https" {
			// A lone user name over HTTP(S) is usually a token.
			u.User = url.User("redacted")
		}
	}
	if q := u.Query(); len(q) > 0 {
		for k := range q {
			q.Set(k, "redacted")
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}
