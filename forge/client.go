package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Token is where a forge token comes from: a file, read again at every
// call (a rotated token is used at once), or an environment variable.
type Token struct {
	File string
	Env  string
}

// Read returns the token; an error names where it looked, never what it
// found.
func (t Token) Read() (string, error) {
	var v string
	switch {
	case t.File != "":
		data, err := os.ReadFile(t.File)
		if err != nil {
			return "", fmt.Errorf("read forge.tokenFile: %w", err)
		}
		v = string(data)
	case t.Env != "":
		v = os.Getenv(t.Env)
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return "", errors.New("the forge token is empty: set forge.tokenFile or forge.tokenEnv")
	}
	return v, nil
}

// maxResponse bounds what is read of one answer: a page of comments of
// 65,536 characters each is the largest roleout asks for.
const maxResponse = 16 << 20

// client makes a provider's JSON calls to one API base URL.
type client struct {
	base  string
	token Token
	// auth sets the token on a request, the forge's way.
	auth func(h http.Header, token string)
	http *http.Client
}

func newClient(base string, token Token, auth func(http.Header, string), hc *http.Client) *client {
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return &client{base: strings.TrimSuffix(base, "/"), token: token, auth: auth, http: hc}
}

// do calls method path (under the base URL) with in as its JSON body (nil:
// none) and decodes the answer into out (nil: dropped). It returns the
// answer's headers (pagination), or an *Error when the forge refused.
func (c *client) do(ctx context.Context, method, path string, in, out any) (http.Header, error) {
	op := method + " " + path
	if i := strings.IndexByte(op, '?'); i >= 0 {
		op = op[:i]
	}
	token, err := c.token.Read()
	if err != nil {
		return nil, err
	}
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "roleout")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.auth(req.Header, token)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read the answer: %w", op, err)
	}
	if len(data) > maxResponse {
		return nil, fmt.Errorf("%s: the answer is over %d bytes", op, maxResponse)
	}
	if resp.StatusCode >= 300 {
		return resp.Header, &Error{Op: op, Status: resp.StatusCode, Message: message(data), RetryAfter: retryAfter(resp, time.Now())}
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return nil, fmt.Errorf("%s: the answer is not the JSON expected: %w", op, err)
		}
	}
	return resp.Header, nil
}

// message is what a forge said in an error body: its message field, else
// the body, on one line and clipped.
func message(body []byte) string {
	var m struct {
		Message any `json:"message"`
		Error   any `json:"error"`
	}
	if json.Unmarshal(body, &m) == nil {
		for _, v := range []any{m.Message, m.Error} {
			if v != nil {
				return oneLine(fmt.Sprint(v), 300)
			}
		}
	}
	return oneLine(string(body), 300)
}

// retryAfter is how long a rate-limited answer asks to wait: its
// Retry-After (seconds or a date), else the reset time of a spent
// allowance (GitHub x-ratelimit-*, GitLab RateLimit-*, Gitea
// X-RateLimit-*); 0 when it says neither.
func retryAfter(resp *http.Response, now time.Time) time.Duration {
	h := resp.Header
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil {
			return time.Duration(max(s, 1)) * time.Second
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), time.Second)
		}
	}
	for _, prefix := range []string{"X-Ratelimit-", "Ratelimit-"} {
		if h.Get(prefix+"Remaining") != "0" {
			continue
		}
		if reset, err := strconv.ParseInt(h.Get(prefix+"Reset"), 10, 64); err == nil {
			return max(time.Unix(reset, 0).Sub(now), time.Second)
		}
	}
	if resp.StatusCode == 429 {
		return time.Minute
	}
	return 0
}

// maxPages bounds the pages of comments read of one pull request.
const maxPages = 50

// comments reads the pages of a pull request's comments: pathOf(page)
// asks for one page of per items, decode turns a page into comments (and
// leaves out what is not a comment); it stops at a short page or
// maxPages.
func comments[T any](ctx context.Context, c *client, per int, pathOf func(page int) string, decode func(T) (Comment, bool)) ([]Comment, error) {
	var out []Comment
	for page := 1; page <= maxPages; page++ {
		var items []T
		if _, err := c.do(ctx, "GET", pathOf(page), nil, &items); err != nil {
			return nil, err
		}
		for _, it := range items {
			if cm, ok := decode(it); ok {
				out = append(out, cm)
			}
		}
		if len(items) < per {
			break
		}
	}
	return out, nil
}
