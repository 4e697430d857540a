package httpserve

import (
	"crypto/tls"
	"fmt"
	"os"
	"sync"
)

// KeyPair is a TLS certificate and its private key, read from two PEM
// files and read again when either changes (its size, modification time
// or the file itself: a Kubernetes Secret volume swaps a symlink). A pair
// that does not load (a file half written, a key that does not match)
// is not served: the last good pair is, until the files change again.
type KeyPair struct {
	certFile, keyFile string

	mu   sync.Mutex
	cert *tls.Certificate
	// seen are the files as last read, good or not.
	seen [2]os.FileInfo
	err  error
}

// LoadKeyPair reads the pair from certFile and keyFile; it fails when
// they do not load.
func LoadKeyPair(certFile, keyFile string) (*KeyPair, error) {
	k := &KeyPair{certFile: certFile, keyFile: keyFile}
	if _, err := k.Check(); err != nil {
		return nil, err
	}
	return k, nil
}

// Check reads the files again when they changed since the last read,
// and reports whether a new pair is served now. The error says why the
// files on disk are not served (the last good pair is); nil when they
// are.
func (k *KeyPair) Check() (reloaded bool, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var now [2]os.FileInfo
	for i, name := range []string{k.certFile, k.keyFile} {
		if now[i], err = os.Stat(name); err != nil {
			k.seen = [2]os.FileInfo{} // read again once it is back
			k.err = fmt.Errorf("read TLS key pair: %w", err)
			return false, k.err
		}
	}
	if same(k.seen[0], now[0]) && same(k.seen[1], now[1]) {
		return false, k.err // read already, good or not: wait for a change
	}
	k.seen = now
	cert, err := tls.LoadX509KeyPair(k.certFile, k.keyFile)
	if err != nil {
		k.err = fmt.Errorf("load TLS certificate %s and key %s: %w", k.certFile, k.keyFile, err)
		return false, k.err
	}
	k.cert, k.err = &cert, nil
	return true, nil
}

// same reports whether a and b look like one version of one file.
func same(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// Certificate returns the pair to serve, after reading the files again
// if they changed; it is a tls.Config's GetCertificate.
func (k *KeyPair) Certificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	_, _ = k.Check()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cert == nil {
		return nil, k.err
	}
	return k.cert, nil
}

// Err says why the files on disk are not what is served (nil when they
// are), as of the last check.
func (k *KeyPair) Err() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

// TLSConfig is a server configuration that serves k: TLS 1.2 or later.
func (k *KeyPair) TLSConfig() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: k.Certificate}
}
