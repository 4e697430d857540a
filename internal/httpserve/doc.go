// Package httpserve is the one HTTP server of roleout (roleout run's
// /hook, /healthz, /readyz, /metrics and web view; roleout ui), with a
// bound on everything a client controls (docs/design.md, "The HTTP
// server's bounds"):
//
//  1. Time: a request's headers (and a TLS handshake) within
//     ReadHeaderTimeout, the whole request with its body within
//     ReadTimeout, the response within WriteTimeout, and a keep-alive
//     connection closed after IdleTimeout without a request.
//  2. Connections: at most MaxConns open (conns.go). At the cap a new
//     connection closes the one idle the longest (a keep-alive between
//     requests, or one that has not sent its request yet) and takes its
//     place; when none is idle, the new one is closed at once. A flood of
//     idle connections therefore never keeps out a probe of /healthz.
//  3. Bodies: at most MaxBodyBytes each (413), and at most MaxBodies
//     requests reading one at once (503 and the connection closed), so
//     slow bodies cannot fill the connections.
//  4. Long-lived responses (the web view's event stream) go through
//     Streams (stream.go): at most Max at once (503 beyond), each ended
//     after Life, and cut off when one write takes longer than
//     WriteTimeout.
//  5. TLS, when asked for, from a KeyPair (keypair.go): a certificate and
//     key read from files and read again when either changes, the last
//     good pair kept while a new one does not load. HTTP/1.1 only, so
//     every bound above holds per connection.
//
// It returns what it saw (KeyPair.Err) and logs nothing. It imports
// nothing of roleout.
package httpserve
