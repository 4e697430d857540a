package testgit

import (
	"bytes"
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Endpoint is one kind of smart-HTTP request.
type Endpoint string

// The smart-HTTP endpoints the server counts.
const (
	// RefsUpload is GET info/refs?service=git-upload-pack: the ref
	// listing that starts every fetch or clone.
	RefsUpload Endpoint = "info/refs upload-pack"
	// UploadPack is POST git-upload-pack: a fetch that negotiates and
	// transfers objects.
	UploadPack Endpoint = "git-upload-pack"
	// RefsReceive is GET info/refs?service=git-receive-pack: the ref
	// listing that starts every push.
	RefsReceive Endpoint = "info/refs receive-pack"
	// ReceivePack is POST git-receive-pack: a push.
	ReceivePack Endpoint = "git-receive-pack"
	// Other is any other request.
	Other Endpoint = "other"
)

// Options configures a Server.
type Options struct {
	// Username and Password, when Username is set, are required as HTTP
	// basic auth on every request.
	Username, Password string
	// Token, when set, is accepted as a bearer token
	// ("Authorization: Bearer TOKEN") on every request; with Username
	// also set, either credential is accepted.
	Token string
}

// Server serves the bare repositories under Root over smart HTTP with
// `git http-backend` (push enabled) on a loopback port, and counts
// requests per repository and endpoint.
type Server struct {
	// Root holds the bare repositories, one directory NAME.git each.
	Root string
	// URL is the server's base URL; a repository is at URL/NAME.git.
	URL string

	opts     Options
	listener net.Listener
	logFile  *os.File
	http     *http.Server
	mu       sync.Mutex
	counts   map[string]map[Endpoint]int
	bytes    map[string]map[Endpoint]int64
}

// Start starts a server whose repositories live in root (created if
// missing).
func Start(root string, opts Options) (*Server, error) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("the git program is needed for the test git server: %w", err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	s := &Server{
		Root:     root,
		URL:      "http://" + l.Addr().String(),
		opts:     opts,
		listener: l,
		counts:   map[string]map[Endpoint]int{},
		bytes:    map[string]map[Endpoint]int64{},
	}
	backend := &cgi.Handler{
		Path: gitPath,
		Args: []string{"http-backend"},
		Env: []string{
			"GIT_PROJECT_ROOT=" + root,
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_NOSYSTEM=1",
			"HOME=" + root,
		},
	}
	// git http-backend reports refused ref updates on stderr; keep that
	// out of the test output.
	logFile, err := os.Create(filepath.Join(root, "http-backend.log"))
	if err != nil {
		l.Close()
		return nil, err
	}
	backend.Stderr = logFile
	s.logFile = logFile
	s.http = &http.Server{Handler: s.handler(backend)}
	go func() { _ = s.http.Serve(l) }()
	return s, nil
}

func (s *Server) handler(backend http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (s.opts.Username != "" || s.opts.Token != "") && !s.authorized(r) {
			if s.opts.Username != "" {
				w.Header().Add("WWW-Authenticate", `Basic realm="roleout-testgit"`)
			}
			if s.opts.Token != "" {
				w.Header().Add("WWW-Authenticate", `Bearer realm="roleout-testgit"`)
			}
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		repo, ep := classify(r)
		s.mu.Lock()
		if s.counts[repo] == nil {
			s.counts[repo] = map[Endpoint]int{}
		}
		s.counts[repo][ep]++
		s.mu.Unlock()
		if err := unchunk(r); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		cw := &countingWriter{ResponseWriter: w}
		backend.ServeHTTP(cw, r)
		s.mu.Lock()
		if s.bytes[repo] == nil {
			s.bytes[repo] = map[Endpoint]int64{}
		}
		s.bytes[repo][ep] += max(r.ContentLength, 0) + cw.n
		s.mu.Unlock()
	})
}

// countingWriter counts the bytes of a response's body.
type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

// Flush passes a flush on, as the backend may ask for one.
func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// unchunk reads a chunked request body into memory: CGI needs a
// Content-Length, and git sends large pushes chunked.
func unchunk(r *http.Request) error {
	if len(r.TransferEncoding) == 0 {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.TransferEncoding = nil
	return nil
}

// authorized reports whether r carries the basic auth or the bearer
// token the server requires.
func (s *Server) authorized(r *http.Request) bool {
	if s.opts.Token != "" {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if ok && subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1 {
			return true
		}
	}
	if s.opts.Username == "" {
		return false
	}
	u, p, ok := r.BasicAuth()
	return ok && subtle.ConstantTimeCompare([]byte(u), []byte(s.opts.Username)) == 1 &&
		subtle.ConstantTimeCompare([]byte(p), []byte(s.opts.Password)) == 1
}

// classify returns the repository a request is for (NAME.git) and its
// endpoint.
func classify(r *http.Request) (string, Endpoint) {
	path := strings.TrimPrefix(r.URL.Path, "/")
	switch {
	case strings.HasSuffix(path, "/info/refs"):
		repo := strings.TrimSuffix(path, "/info/refs")
		switch r.URL.Query().Get("service") {
		case "git-upload-pack":
			return repo, RefsUpload
		case "git-receive-pack":
			return repo, RefsReceive
		}
		return repo, Other
	case strings.HasSuffix(path, "/git-upload-pack"):
		return strings.TrimSuffix(path, "/git-upload-pack"), UploadPack
	case strings.HasSuffix(path, "/git-receive-pack"):
		return strings.TrimSuffix(path, "/git-receive-pack"), ReceivePack
	}
	return path, Other
}

// Count returns how many requests of kind ep reached repository name
// (NAME.git, or NAME) since the server started or counts were reset.
func (s *Server) Count(name string, ep Endpoint) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[repoKey(name)][ep]
}

// Counts returns a copy of the request counts of repository name.
func (s *Server) Counts(name string) map[Endpoint]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[Endpoint]int{}
	for ep, n := range s.counts[repoKey(name)] {
		out[ep] = n
	}
	return out
}

// Bytes returns the bytes repository name's requests of kind ep moved
// (request and response bodies) since the server started or counts were
// reset: what fetches (UploadPack) and pushes (ReceivePack) cost it.
func (s *Server) Bytes(name string, ep Endpoint) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes[repoKey(name)][ep]
}

// ResetCounts sets every request count and byte count to zero.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts = map[string]map[Endpoint]int{}
	s.bytes = map[string]map[Endpoint]int64{}
}

// RepoURL returns the HTTP URL of repository name.
func (s *Server) RepoURL(name string) string { return s.URL + "/" + repoKey(name) }

// Pause stops serving (requests fail to connect) until Resume, for fault
// tests; repositories and counts stay.
func (s *Server) Pause() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.http.Close()
}

// Resume serves again on the same address after Pause.
func (s *Server) Resume() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := net.Listen("tcp", s.listener.Addr().String())
	if err != nil {
		return fmt.Errorf("listen again on %s: %w", s.listener.Addr(), err)
	}
	s.listener = l
	s.http = &http.Server{Handler: s.http.Handler}
	go func() { _ = s.http.Serve(l) }()
	return nil
}

// Close stops the server. It waits (up to 10 s) for requests in flight,
// whose git processes write to the log file, before closing that file.
func (s *Server) Close() error {
	s.mu.Lock()
	srv := s.http
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := srv.Shutdown(ctx)
	if err != nil {
		err = srv.Close()
	}
	s.logFile.Close()
	return err
}

func repoKey(name string) string {
	if strings.HasSuffix(name, ".git") {
		return name
	}
	return name + ".git"
}

// barePath returns the directory of bare repository name.
func (s *Server) barePath(name string) string { return filepath.Join(s.Root, repoKey(name)) }
