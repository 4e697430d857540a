package ui

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/sync/errgroup"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/status"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// ContentSecurityPolicy is sent with every response: scripts, styles and
// connections only from the view itself, nothing inline, no frames.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Server serves the view from a Store.
type Server struct {
	store *Store
	auth  Authorizer
	log   logrus.FieldLogger
	pages map[string]*template.Template
	mux   *http.ServeMux
	// Heartbeat is how often an idle event stream gets a comment, so
	// proxies keep it open.
	Heartbeat time.Duration
	// Live, when set (roleout run), tells the waves in flight between
	// status commits: pages show their progress bars, and event streams
	// send it. roleout ui, which reads the status branch alone, has none.
	Live Live
	// Queue, when set (roleout run), lists the pull-request heads
	// waiting for previews on the overview and in /api/v1/apps.
	Queue Queue
}

// Live is the running agent's view of its rollouts in flight
// (agent.Agent.Flights).
type Live interface {
	// Flights returns, by app, the wave each rollout in flight is
	// applying, and a channel closed at the next change.
	Flights() (map[string]status.Flight, <-chan struct{})
}

// flightThrottle bounds how often an event stream sends flights: a wave
// of thousands of objects changes its counts thousands of times.
const flightThrottle = 250 * time.Millisecond

// NewServer returns the view of store, for the readers auth admits.
func NewServer(store *Store, auth Authorizer, log logrus.FieldLogger) *Server {
	s := &Server{store: store, auth: auth, log: log, pages: map[string]*template.Template{}, mux: http.NewServeMux(), Heartbeat: 15 * time.Second}
	for _, p := range []string{"overview", "app", "history", "preview", "revision", "message"} {
		files := []string{"templates/layout.html", "templates/" + p + ".html"}
		t := template.New(p).Funcs(funcs)
		s.pages[p] = template.Must(t.ParseFS(templateFS, files...))
	}
	s.mux.Handle("GET /static/", http.FileServerFS(staticFS))
	s.mux.HandleFunc("GET /login", s.login)
	s.mux.HandleFunc("GET /{$}", s.authed(s.overview))
	s.mux.HandleFunc("GET /apps/{app}", s.authed(s.app))
	s.mux.HandleFunc("GET /apps/{app}/history", s.authed(s.history))
	s.mux.HandleFunc("GET /apps/{app}/previews/{name}", s.authed(s.preview))
	s.mux.HandleFunc("GET /apps/{app}/roles/{role}/revisions/{n}", s.authed(s.revision))
	s.mux.HandleFunc("GET /api/v1/apps", s.authed(s.apiApps))
	s.mux.HandleFunc("GET /api/v1/apps/{app}", s.authed(s.apiApp))
	s.mux.HandleFunc("GET /api/v1/apps/{app}/history", s.authed(s.apiHistory))
	s.mux.HandleFunc("GET /events", s.authed(s.events))
	return s
}

// ServeHTTP answers GET and HEAD only, with the security headers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "the web view is read-only: GET and HEAD only", http.StatusMethodNotAllowed)
		return
	}
	if _, open := s.auth.(Open); open && !loopbackHost(r.Host) {
		// A page of another site whose name was made to resolve to
		// 127.0.0.1 (DNS rebinding) would read an unauthenticated view.
		http.Error(w, "the web view without authentication (ui.auth: none) answers only requests for a loopback address or localhost, not "+strconv.Quote(r.Host), http.StatusMisdirectedRequest)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// loopbackHost reports whether host, a request's Host with or without a
// port, names a loopback address or localhost.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return config.LoopbackHost(host)
}

// request is what a handler knows of its request.
type request struct {
	reader *Reader
	snap   *Snapshot
	// flights are the rollouts in flight, by app (none without Live).
	flights map[string]status.Flight
	// visible says whether the reader may see an app; access.prefetch
	// asks for many at once.
	visible func(a *App) bool
	access  *access
}

type handler func(w http.ResponseWriter, r *http.Request, q *request)

// authed authenticates the request (401 without a good token) and lets
// the handler ask which apps the reader may see.
func (s *Server) authed(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		reader, err := s.auth.Authenticate(r)
		if err != nil {
			s.unauthorized(w, r, err)
			return
		}
		q := &request{reader: reader, snap: s.store.Snapshot()}
		if s.Live != nil {
			q.flights, _ = s.Live.Flights()
		}
		q.access = &access{s: s, ctx: r.Context(), reader: reader, seen: map[string]bool{}}
		q.visible = q.access.can
		h(w, r, q)
	}
}

// sarConcurrency bounds the access reviews one request asks at once.
const sarConcurrency = 16

// access is what one request knows of its reader's access: each
// namespace (and ClusterWide) asked once.
type access struct {
	s      *Server
	ctx    context.Context
	reader *Reader
	mu     sync.Mutex
	seen   map[string]bool
}

// can reports whether the reader may see a: read in every namespace of
// its Scope, and cluster-wide when it writes cluster-scoped objects.
func (x *access) can(a *App) bool {
	for _, ns := range a.Scope.Checks() {
		x.mu.Lock()
		ok, known := x.seen[ns]
		x.mu.Unlock()
		if !known {
			ok = x.ask(ns)
		}
		if !ok {
			return false
		}
	}
	return true
}

func (x *access) ask(ns string) bool {
	ok, err := x.s.auth.CanRead(x.ctx, x.reader, ns)
	if err != nil {
		x.s.log.WithError(err).WithField("namespace", ns).Warn("web view: SubjectAccessReview failed; the apps that write there are not shown")
	}
	x.mu.Lock()
	x.seen[ns] = ok
	x.mu.Unlock()
	return ok
}

// prefetch asks for the namespaces of apps at once, sarConcurrency at a
// time: a list of a thousand apps in a thousand namespaces does not wait
// for a thousand reviews in a row.
func (x *access) prefetch(apps []*App) {
	var g errgroup.Group
	g.SetLimit(sarConcurrency)
	asked := map[string]bool{}
	for _, a := range apps {
		for _, ns := range a.Scope.Checks() {
			if !asked[ns] {
				asked[ns] = true
				g.Go(func() error { x.ask(ns); return nil })
			}
		}
	}
	_ = g.Wait()
}

func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request, err error) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="roleout"`)
	if wantsJSON(r) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": err.Error()})
		return
	}
	s.render(w, http.StatusUnauthorized, "message", page{Title: "Sign in", Heading: "Sign in", Text: err.Error(), Class: "error", Login: true})
}

func wantsJSON(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/events"
}

// login shows the token form (its script sets the cookie).
func (s *Server) login(w http.ResponseWriter, _ *http.Request) {
	if _, open := s.auth.(Open); open {
		s.render(w, http.StatusOK, "message", page{Title: "Sign in", Heading: "No sign-in", Text: "This view is served on a loopback address without authentication (ui.auth: none)."})
		return
	}
	s.render(w, http.StatusOK, "message", page{Title: "Sign in", Heading: "Sign in", Text: "Paste a Kubernetes bearer token.", Login: true})
}

// page is every template's data; each page sets what it shows.
type page struct {
	Title, AppName string
	Crumbs         []crumb
	Snap           *Snapshot
	Reader         string
	Live           bool

	// overview
	Query, Phase string
	Phases       []string
	Rows         []overviewRow
	Shown, Total int
	// Owners shows the owner column (sharding.mode dynamic).
	Owners bool
	Pages  []pageLink
	// Waiting is the pull-request heads waiting for previews (the first
	// maxWaitingShown), and WaitingMore how many more wait.
	Waiting     []WaitingPreview
	WaitingMore int

	// app, history, revision
	A      *App
	Waves  []wave
	Flight *status.Flight
	// Actions are, by role, the last rollout that applied it.
	Actions map[string]lastAction
	Picture picture
	History []historyRow
	Role    string
	R       any
	Objects []shownObject

	// preview
	P any

	// message
	Heading, Text, Class string
	Login                bool
}

type crumb struct{ Label, Href string }

type pageLink struct {
	N       int
	Href    string
	Current bool
}

func (s *Server) base(q *request, title string) page {
	p := page{Title: title, Snap: q.snap, Live: true}
	if _, open := s.auth.(Open); !open {
		p.Reader = q.reader.Name
	}
	return p
}

// render writes template name with data; a template error is logged and
// answered with 500 (nothing half-written: it renders to a buffer).
func (s *Server) render(w http.ResponseWriter, code int, name string, data page) {
	var buf bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&buf, "layout", data); err != nil {
		s.log.WithError(err).WithField("page", name).Error("web view: a page failed to render")
		http.Error(w, "the page failed to render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// notFound answers 404 in the request's form.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request, q *request, msg string) {
	if wantsJSON(r) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": msg})
		return
	}
	p := s.base(q, "Not found")
	p.Heading, p.Text, p.Class, p.Live = "Not found", msg, "error", false
	s.render(w, http.StatusNotFound, "message", p)
}

// appOf returns the request's {app}, or answers 404: an app not in the
// config (or removed from it), or one the reader may not see, which is
// told apart from the first by nothing.
func (s *Server) appOf(w http.ResponseWriter, r *http.Request, q *request) *App {
	name := r.PathValue("app")
	a := q.snap.App(name)
	if a == nil || !q.visible(a) {
		s.notFound(w, r, q, "no app "+strconv.Quote(name)+" in the agent config (removed from it, or never in it), or your token may not see it")
		return nil
	}
	return a
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// pageSize is how many rows a page lists; the rest are on further pages.
const pageSize = 200

// pageOf returns the rows [from, to) of page ?page= among n, and the
// links to every page when there is more than one.
func pageOf(r *http.Request, n int) (from, to int, links []pageLink) {
	cur, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pages := (n + pageSize - 1) / pageSize
	cur = max(1, min(cur, pages))
	if pages > 1 {
		for i := 1; i <= pages; i++ {
			v := url.Values{}
			for _, k := range []string{"q", "phase"} { // nothing else of the request is repeated
				if x := r.URL.Query().Get(k); x != "" {
					v.Set(k, clip(x, 200))
				}
			}
			v.Set("page", strconv.Itoa(i))
			links = append(links, pageLink{N: i, Href: r.URL.Path + "?" + v.Encode(), Current: i == cur})
		}
	}
	from = min(n, (cur-1)*pageSize)
	return from, min(n, from+pageSize), links
}
