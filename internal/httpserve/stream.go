package httpserve

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// StreamOptions bound long-lived responses (Server-Sent Events).
type StreamOptions struct {
	// Max caps the streams open at once; past it a stream gets 503
	// (an EventSource then stops; the web view's script polls).
	Max int
	// Life ends a stream: its context is done and its connection's
	// deadlines pass. A browser's EventSource reconnects.
	Life time.Duration
	// WriteTimeout cuts off a stream when one write (a flush) takes
	// longer: a reader that stops reading holds it no longer.
	WriteTimeout time.Duration
}

// DefaultStreamOptions are the web view's event streams' bounds: 100 at
// once, 5 minutes each (ui ends its streams then too, so that a
// reconnect authenticates again), 30 s a write.
func DefaultStreamOptions() StreamOptions {
	return StreamOptions{Max: 100, Life: 5 * time.Minute, WriteTimeout: 30 * time.Second}
}

// Streams bounds the long-lived responses of one handler, which it
// serves: the server's read and write timeouts no longer apply to them,
// StreamOptions' bounds do.
type Streams struct {
	opts  StreamOptions
	slots chan struct{}
	next  http.Handler
}

// NewStreams returns next served within o's bounds.
func NewStreams(next http.Handler, o StreamOptions) *Streams {
	d := DefaultStreamOptions()
	if o.Max <= 0 {
		o.Max = d.Max
	}
	if o.Life <= 0 {
		o.Life = d.Life
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = d.WriteTimeout
	}
	return &Streams{opts: o, slots: make(chan struct{}, o.Max), next: next}
}

// ServeHTTP serves a stream, or 503 past Max.
func (s *Streams) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	default:
		w.Header().Set("Retry-After", "10")
		http.Error(w, "too many event streams open (at most "+strconv.Itoa(s.opts.Max)+"): try again later", http.StatusServiceUnavailable)
		return
	}
	end := time.Now().Add(s.opts.Life)
	ctx, cancel := context.WithDeadline(r.Context(), end)
	defer cancel()
	rc := http.NewResponseController(w)
	// The server's read deadline would end the request's context at
	// ReadTimeout; the stream's is its life.
	_ = rc.SetReadDeadline(end)
	sw := &streamWriter{ResponseWriter: w, rc: rc, end: end, timeout: s.opts.WriteTimeout}
	sw.extend()
	s.next.ServeHTTP(sw, r.WithContext(ctx))
}

// streamWriter sets the connection's write deadline before each write
// and flush: WriteTimeout from then, never past the stream's end.
type streamWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	end     time.Time
	timeout time.Duration
}

func (w *streamWriter) extend() {
	d := time.Now().Add(w.timeout)
	if d.After(w.end) {
		d = w.end
	}
	_ = w.rc.SetWriteDeadline(d)
}

// Write writes p within the write timeout.
func (w *streamWriter) Write(p []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(p)
}

// Flush sends what was written within the write timeout.
func (w *streamWriter) Flush() {
	w.extend()
	_ = w.rc.Flush()
}

// Unwrap is the ResponseWriter under w, for http.ResponseController.
func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
