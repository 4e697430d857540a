package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// countingProxy is a plain-HTTP reverse proxy on 127.0.0.1 to the API
// server (as the admin user) that counts every request a client makes
// through it: a program given its kubeconfig (kubeconfig) has each of
// its API requests counted, watches included (one request each, however
// long it streams). The audit log cannot do this: its policy records
// writes only.
type countingProxy struct {
	srv        *http.Server
	kubeconfig string
	mu         sync.Mutex
	// requests are the requests since the last reset, "VERB path" with
	// WATCH for watches.
	requests []string
}

// startProxy starts a countingProxy to cfg's API server and writes its
// kubeconfig to path.
func startProxy(cfg *rest.Config, path string) (*countingProxy, error) {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	p := &countingProxy{kubeconfig: path}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			p.count(r.In)
		},
		Transport: rt,
		// Watches stream: pass every event on at once.
		FlushInterval: -1,
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.srv = &http.Server{Handler: rp}
	go func() { _ = p.srv.Serve(l) }()
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: bench, cluster: {server: "http://%s"}}]
users: [{name: bench, user: {}}]
contexts: [{name: bench, context: {cluster: bench, user: bench}}]
current-context: bench
`, l.Addr())
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		p.srv.Close()
		return nil, err
	}
	return p, nil
}

// count records req.
func (p *countingProxy) count(req *http.Request) {
	verb := req.Method
	if req.Method == http.MethodGet && req.URL.Query().Get("watch") == "true" {
		verb = "WATCH"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, verb+" "+req.URL.Path)
}

// reset forgets the requests counted so far.
func (p *countingProxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = nil
}

// counts returns the requests since the last reset: watches started, and
// every other request; and a summary of them ("3 × GET /api/v1/…").
func (p *countingProxy) counts() (watches, others int, summary string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	by := map[string]int{}
	for _, r := range p.requests {
		if strings.HasPrefix(r, "WATCH ") {
			watches++
		} else {
			others++
		}
		by[r]++
	}
	var parts []string
	for r, n := range by {
		parts = append(parts, fmt.Sprintf("%d × %s", n, r))
	}
	sort.Strings(parts)
	return watches, others, strings.Join(parts, "; ")
}

// close stops the proxy and ends the connections through it.
func (p *countingProxy) close() { _ = p.srv.Close() }
