package render

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/roleout/roleout/internal/secrets"
)

// fetchTimeout bounds one HTTP fetch a render makes, headers and body.
const fetchTimeout = 30 * time.Second

// fetchGate is the only way a sandboxed render reaches the network over
// HTTP: kustomize fetches http(s) paths itself (generator files and envs,
// patches, replacements, openapi, crds, configurations, generators,
// transformers and validators), through http.DefaultTransport, which the
// sandbox child replaces with a gate. A request to a host that is not in
// render.remoteHosts is refused before any connection is made; an allowed
// one is bounded in time and bytes. Redirects come back through the gate.
type fetchGate struct {
	allowed  []string
	maxBytes int64
	base     http.RoundTripper
	fetched  atomic.Bool
}

func newFetchGate(allowed []string, l Limits) *fetchGate {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil // a proxy from the environment would see every URL
	return &fetchGate{allowed: allowed, maxBytes: l.MaxFileBytes, base: base}
}

// errFetchRefused is the error for a fetch of a host the app does not
// allow.
type errFetchRefused struct{ url, host string }

func (e *errFetchRefused) Error() string {
	return fmt.Sprintf("fetch of %s refused: host %q is not in render.remoteHosts of the app (previews never fetch)", e.url, e.host)
}

// used reports whether an allowed fetch was made.
func (g *fetchGate) used() bool { return g.fetched.Load() }

// RoundTrip refuses a host that is not allowed, else makes the request
// with a deadline and a body limited to maxBytes.
func (g *fetchGate) RoundTrip(req *http.Request) (*http.Response, error) {
	host := req.URL.Hostname()
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" || !hostAllowed(host, g.allowed) {
		return nil, &errFetchRefused{url: secrets.RedactURL(req.URL.String()), host: host}
	}
	g.fetched.Store(true)
	ctx, cancel := context.WithTimeout(req.Context(), fetchTimeout)
	resp, err := g.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &boundedBody{r: resp.Body, limit: g.maxBytes, url: secrets.RedactURL(req.URL.String()), cancel: cancel}
	return resp, nil
}

// boundedBody fails a read past its byte limit (none when it is 0 or
// less) and ends the request's deadline when closed.
type boundedBody struct {
	r      io.ReadCloser
	limit  int64
	read   int64
	url    string
	cancel context.CancelFunc
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.limit > 0 && int64(len(p)) > b.limit-b.read+1 {
		p = p[:b.limit-b.read+1] // one byte past the limit tells that there is more
	}
	n, err := b.r.Read(p)
	if b.read += int64(n); b.limit > 0 && b.read > b.limit {
		return 0, fmt.Errorf("fetch of %s: the response is larger than the limit of bytes per file (limit maxFileBytes)", b.url)
	}
	return n, err
}

func (b *boundedBody) Close() error {
	b.cancel()
	return b.r.Close()
}
