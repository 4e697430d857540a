package config

import (
	"fmt"
	"net"
	"strings"
)

// The ways the web view authenticates its readers (ui.auth).
const (
	// UIAuthNone: no authentication; the view is served only on a
	// loopback listener (kubectl port-forward, or a laptop).
	UIAuthNone = "none"
	// UIAuthKubernetes: a bearer token, checked with a TokenReview; an
	// app is shown only when a SubjectAccessReview says its user may get
	// objects in the app's namespace.
	UIAuthKubernetes = "kubernetes"
)

// UI is the read-only web view (docs/design.md, "The web view").
type UI struct {
	// Enabled serves the view at / on http.address in roleout run.
	// Default true; the view is then served whenever the HTTP endpoint is,
	// on a loopback http.address with auth none.
	Enabled *bool `json:"enabled,omitempty"`
	// Auth is none (the default) or kubernetes.
	Auth string `json:"auth,omitempty"`
	// Address, when set, is a listener of the view's own in roleout run
	// (say 127.0.0.1:8090, for kubectl port-forward), apart from the
	// /metrics and /healthz of http.address.
	Address string `json:"address,omitempty"`
	// TLSCertFile and TLSKeyFile, set together, serve the view over
	// HTTPS with this certificate (PEM, its chain after it) and key,
	// read again when either file changes. When the view shares
	// http.address, that whole listener serves HTTPS. Required with
	// auth kubernetes on an address that is not loopback: bearer tokens
	// do not cross a network in the clear.
	TLSCertFile string `json:"tlsCertFile,omitempty"`
	TLSKeyFile  string `json:"tlsKeyFile,omitempty"`
}

// TLS reports whether the view is served over HTTPS.
func (u UI) TLS() bool { return u.TLSCertFile != "" }

// On reports whether roleout run serves the view.
func (u UI) On() bool { return u.Enabled == nil || *u.Enabled }

// AuthOrDefault is Auth, or UIAuthNone.
func (u UI) AuthOrDefault() string {
	if u.Auth == "" {
		return UIAuthNone
	}
	return u.Auth
}

func (u UI) validate(add func(field, format string, args ...any)) {
	switch u.Auth {
	case "", UIAuthNone, UIAuthKubernetes:
	default:
		add("ui.auth", "must be none or kubernetes, got %q", u.Auth)
	}
	if (u.TLSCertFile == "") != (u.TLSKeyFile == "") {
		add("ui.tlsCertFile", "ui.tlsCertFile and ui.tlsKeyFile go together: set both (a PEM certificate and its key), or neither to serve plain HTTP")
	}
	if u.Address != "" {
		if _, _, err := net.SplitHostPort(u.Address); err != nil {
			add("ui.address", "must be host:port, got %q: %v", u.Address, err)
		} else if err := u.ListenerError(u.Address); err != nil {
			add("ui.address", "%v", err)
		}
	}
}

// ListenerError says why the view may not be served on addr, nil when
// it may: with auth none only on a loopback address (no one else is
// authenticated), with auth kubernetes off loopback only over TLS
// (readers' bearer tokens must not cross a network in the clear).
func (u UI) ListenerError(addr string) error {
	if Loopback(addr) {
		return nil
	}
	switch {
	case u.AuthOrDefault() == UIAuthNone:
		return fmt.Errorf("%q is not a loopback address, and ui.auth none serves the view to no one else: use 127.0.0.1:PORT (and kubectl port-forward), or set ui.auth: kubernetes", addr)
	case !u.TLS():
		return fmt.Errorf("%q is not a loopback address, and ui.auth kubernetes would take readers' bearer tokens over plain HTTP: set ui.tlsCertFile and ui.tlsKeyFile (a certificate for the name readers use), or listen on 127.0.0.1:PORT behind a TLS-terminating proxy in the same pod", addr)
	}
	return nil
}

// Loopback reports whether the listen address addr (host:port) is on a
// loopback interface only: 127.0.0.0/8, ::1 or localhost. An empty host
// (":8080") listens on every interface.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && LoopbackHost(host)
}

// LoopbackHost reports whether host (a name or an address, bracketed or
// not, as a request's Host names it without its port) is a loopback
// address or localhost.
func LoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// UIListener says where roleout run serves the view: ui.address, else
// http.address; and, when it does not serve it, why ("" when it does).
func (c *Config) UIListener() (addr, why string) {
	switch {
	case !c.UI.On():
		return "", "ui.enabled is false"
	case c.UI.Address != "":
		return c.UI.Address, ""
	case c.HTTP.Address == "-":
		return "", `http.address is "-" and ui.address is not set`
	case c.UI.AuthOrDefault() == UIAuthNone && !Loopback(c.HTTP.Address):
		return "", fmt.Sprintf("http.address %q is not a loopback address and ui.auth is none: set ui.address: 127.0.0.1:8090 (and kubectl port-forward to it), or ui.auth: kubernetes", c.HTTP.Address)
	}
	return c.HTTP.Address, ""
}
