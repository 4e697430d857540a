package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/httpserve"
)

// listenAndServe listens on addr (the config field named field) and
// serves h there until ctx ends, over TLS with tlsCfg when not nil; it
// returns the address listened on.
func listenAndServe(ctx context.Context, field, addr string, h http.Handler, tlsCfg *tls.Config) (string, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listen on %s %s: %w", field, addr, err)
	}
	go func() { _ = serveUntil(ctx, l, h, tlsCfg) }()
	return l.Addr().String(), nil
}

// serveUntil serves h on l until ctx ends, within httpserve's bounds
// (docs/design.md, "The HTTP server's bounds"), over TLS with tlsCfg
// when not nil. Requests' contexts end with ctx, so long ones (the web
// view's event streams) do not hold the shutdown.
func serveUntil(ctx context.Context, l net.Listener, h http.Handler, tlsCfg *tls.Config) error {
	o := httpserve.DefaultOptions()
	o.TLS = tlsCfg
	return httpserve.Serve(ctx, l, h, o)
}

// boundStreams serves the web view's event stream (/events) within
// httpserve's stream bounds (at most 100 at once, 5 minutes each), and
// the rest of view as it is.
func boundStreams(view http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/events", httpserve.NewStreams(view, httpserve.DefaultStreamOptions()))
	mux.Handle("/", view)
	return mux
}

// viewTLS is the web view's TLS configuration from ui.tlsCertFile and
// ui.tlsKeyFile (nil when they are not set): the pair is read now, and
// again when the files change (at a new connection, and every
// keyPairCheck, when a reload or a pair that does not load is logged).
func viewTLS(ctx context.Context, cfg *config.Config, log logrus.FieldLogger) (*tls.Config, error) {
	if !cfg.UI.TLS() {
		return nil, nil
	}
	kp, err := httpserve.LoadKeyPair(cfg.UI.TLSCertFile, cfg.UI.TLSKeyFile)
	if err != nil {
		return nil, fmt.Errorf("ui.tlsCertFile and ui.tlsKeyFile: %w", err)
	}
	go watchKeyPair(ctx, kp, log)
	return kp.TLSConfig(), nil
}

// keyPairCheck is how often the web view's TLS files are looked at when
// no connection does.
const keyPairCheck = 30 * time.Second

// watchKeyPair checks kp's files every keyPairCheck until ctx ends and
// logs each reload, and each new reason the files are not served.
func watchKeyPair(ctx context.Context, kp *httpserve.KeyPair, log logrus.FieldLogger) {
	t := time.NewTicker(keyPairCheck)
	defer t.Stop()
	var said string
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		reloaded, err := kp.Check()
		switch {
		case err != nil && err.Error() != said:
			log.WithError(err).Warn("web view: the TLS certificate and key files do not load; serving the last good pair")
			said = err.Error()
		case err == nil && (reloaded || said != ""):
			log.Info("web view: TLS certificate and key read again")
			said = ""
		}
	}
}

// viewListenerError refuses to serve the web view on addr (the config
// field or flag named field) when config.UI.ListenerError does.
func viewListenerError(cfg *config.Config, field, addr string) error {
	if err := cfg.UI.ListenerError(addr); err != nil {
		return &usageError{fmt.Sprintf("the web view on %s: %v", field, err)}
	}
	return nil
}
