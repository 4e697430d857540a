package httpserve

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Options bound a server. Zero fields take DefaultOptions' values.
type Options struct {
	// ReadHeaderTimeout bounds reading a request's headers, from its
	// first byte (a new connection's, or after a keep-alive wait), and
	// a TLS handshake.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, its body included;
	// a handler still running then sees its context end.
	ReadTimeout time.Duration
	// WriteTimeout bounds a response, from the end of its request's
	// headers.
	WriteTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection waits for its
	// next request before it is closed.
	IdleTimeout time.Duration
	// MaxConns caps the connections open at once; see conns.go for what
	// happens at the cap.
	MaxConns int
	// MaxHeaderBytes caps a request's headers.
	MaxHeaderBytes int
	// MaxBodyBytes caps a request's body: a longer one is refused (413)
	// or its read fails (http.MaxBytesError).
	MaxBodyBytes int64
	// MaxBodies caps the requests with a body served at once; past it a
	// request with a body gets 503 and its connection is closed.
	MaxBodies int
	// ShutdownTimeout bounds the graceful shutdown when the context
	// ends; connections still open then are closed.
	ShutdownTimeout time.Duration
	// TLS, when set, serves HTTPS (HTTP/1.1) with it, say
	// KeyPair.TLSConfig.
	TLS *tls.Config
}

// DefaultOptions are the bounds of roleout's HTTP server: headers in
// 10 s, a request in 20 s, a response in 30 s, keep-alive for 15 s,
// 512 connections, 64 KiB of headers, 1 MiB bodies (webhook.MaxBody),
// 32 bodies at once.
func DefaultOptions() Options {
	return Options{
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       20 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       15 * time.Second,
		MaxConns:          512,
		MaxHeaderBytes:    64 << 10,
		MaxBodyBytes:      1 << 20,
		MaxBodies:         32,
		ShutdownTimeout:   5 * time.Second,
	}
}

// withDefaults fills o's zero fields from DefaultOptions.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	pick := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	pick(&o.ReadHeaderTimeout, d.ReadHeaderTimeout)
	pick(&o.ReadTimeout, d.ReadTimeout)
	pick(&o.WriteTimeout, d.WriteTimeout)
	pick(&o.IdleTimeout, d.IdleTimeout)
	pick(&o.ShutdownTimeout, d.ShutdownTimeout)
	if o.MaxConns <= 0 {
		o.MaxConns = d.MaxConns
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = d.MaxHeaderBytes
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = d.MaxBodyBytes
	}
	if o.MaxBodies <= 0 {
		o.MaxBodies = d.MaxBodies
	}
	return o
}

// Serve serves h on l within o's bounds until ctx ends, then shuts down
// (requests' contexts end with ctx, so long ones do not hold it). It
// closes l.
func Serve(ctx context.Context, l net.Listener, h http.Handler, o Options) error {
	o = o.withDefaults()
	return serveOn(ctx, newConnLimit(l, o.MaxConns), h, o)
}

// serveOn is Serve on conns, with o complete.
func serveOn(ctx context.Context, conns *connLimit, h http.Handler, o Options) error {
	srv := &http.Server{
		Handler:           bodies(h, o),
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    o.MaxHeaderBytes,
		ConnState:         conns.track,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		// HTTP/1.1 only: every bound holds per connection.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	var served net.Listener = conns
	if o.TLS != nil {
		cfg := o.TLS.Clone()
		cfg.NextProtos = []string{"http/1.1"}
		served = tls.NewListener(conns, cfg)
	}
	stopped := context.AfterFunc(ctx, func() {
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.ShutdownTimeout)
		defer cancel()
		if srv.Shutdown(shutdown) != nil {
			_ = srv.Close()
		}
	})
	defer stopped()
	if err := srv.Serve(served); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// bodies bounds request bodies: each to o.MaxBodyBytes, and o.MaxBodies
// of them at once.
func bodies(h http.Handler, o Options) http.Handler {
	slots := make(chan struct{}, o.MaxBodies)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > o.MaxBodyBytes {
			// Closing the connection spares reading the body.
			w.Header().Set("Connection", "close")
			http.Error(w, "request body of "+strconv.FormatInt(r.ContentLength, 10)+" bytes is over the limit of "+strconv.FormatInt(o.MaxBodyBytes, 10), http.StatusRequestEntityTooLarge)
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		default:
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many requests with a body at once (at most "+strconv.Itoa(o.MaxBodies)+"): try again", http.StatusServiceUnavailable)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, o.MaxBodyBytes)
		h.ServeHTTP(w, r)
	})
}
