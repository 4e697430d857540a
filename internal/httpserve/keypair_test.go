package httpserve

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// selfSigned returns a certificate for 127.0.0.1 with serial n and its
// key, PEM-encoded.
func selfSigned(t *testing.T, n int64) (certPEM, keyPEM []byte, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(n), Subject: pkix.Name{CommonName: "roleout test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), cert
}

// TestKeyPairReloads serves HTTPS from a key pair's files: a new pair
// written over them is served at the next connection, one swapped in by
// a rename too, and a key that does not load keeps the last good pair.
func TestKeyPairReloads(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if _, err := LoadKeyPair(certFile, keyFile); err == nil {
		t.Fatal("LoadKeyPair of files that do not exist: no error")
	}
	pool := x509.NewCertPool()
	write := func(n int64, rename bool) {
		t.Helper()
		c, k, cert := selfSigned(t, n)
		pool.AddCert(cert)
		for name, data := range map[string][]byte{certFile: c, keyFile: k} {
			target := name
			if rename {
				target = name + ".new"
			}
			if err := os.WriteFile(target, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if rename {
				if err := os.Rename(target, name); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	write(1, false)
	kp, err := LoadKeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}), Options{TLS: kp.TLSConfig()})
	served := func() int64 {
		t.Helper()
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}}
		resp, err := client.Get("https://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.ProtoMajor != 1 {
			t.Errorf("served %s, want HTTP/1.1", resp.Proto)
		}
		return resp.TLS.PeerCertificates[0].SerialNumber.Int64()
	}
	if got := served(); got != 1 {
		t.Fatalf("serial %d served, want 1", got)
	}
	write(2, false)
	if got := served(); got != 2 {
		t.Errorf("after new files: serial %d served, want 2", got)
	}
	if err := os.WriteFile(keyFile, []byte("-----BEGIN PRIVATE KEY-----\nbroken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := served(); got != 2 {
		t.Errorf("after a key that does not load: serial %d served, want the last good 2", got)
	}
	if kp.Err() == nil {
		t.Error("Err is nil while the files on disk do not load")
	}
	write(3, true)
	if got := served(); got != 3 {
		t.Errorf("after files swapped in by rename: serial %d served, want 3", got)
	}
	if err := kp.Err(); err != nil {
		t.Errorf("Err after a good pair: %v", err)
	}
}
