package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// certFiles writes a self-signed certificate for 127.0.0.1 with serial
// n and its key to certFile and keyFile (each through a rename, as a
// Secret volume swaps them), and adds the certificate to pool.
func certFiles(t *testing.T, certFile, keyFile string, n int64, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(n), Subject: pkix.Name{CommonName: "roleout view"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool.AddCert(cert)
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for name, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "PRIVATE KEY", Bytes: kder}} {
		if err := os.WriteFile(name+".new", pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(name+".new", name); err != nil {
			t.Fatal(err)
		}
	}
}

// servedSerial GETs url over HTTPS trusting pool, and returns the status
// and the serial of the certificate served.
func servedSerial(t *testing.T, url string, pool *x509.CertPool) (int, int64) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.TLS.PeerCertificates[0].SerialNumber.Int64()
}

// TestViewTLS: ui.auth kubernetes on an address that is not loopback is
// refused without TLS (roleout ui's --listen, ui.address, and the view
// on http.address), naming ui.tlsCertFile. With ui.tlsCertFile and
// ui.tlsKeyFile, roleout ui serves HTTPS, and serves a new certificate
// once the files are replaced; roleout run with the view on http.address
// serves /healthz over HTTPS too.
func TestViewTLS(t *testing.T) {
	t.Parallel()
	_, repo, _ := newSourceRepo(t)
	plain := writeConfig(t, repo.URL(), "- {name: web, path: apps/web, namespace: ui-tls}\n")
	data, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	withUI := func(extra string) string {
		path := filepath.Join(t.TempDir(), "agent.yaml")
		if err := os.WriteFile(path, append(append([]byte{}, data...), extra...), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	free := freeAddress(t)
	_, port, _ := net.SplitHostPort(free)
	for name, args := range map[string][]string{
		"roleout ui --listen 0.0.0.0":     {"ui", "--config", withUI("ui: {auth: kubernetes}\n"), "--listen", "0.0.0.0:0"},
		"roleout run, ui.address 0.0.0.0": {"run", "--config", withUI("ui: {auth: kubernetes, address: \"0.0.0.0:" + port + "\"}\n")},
		"roleout run, http.address :PORT": {"run", "--config", withUI("ui: {auth: kubernetes}\nhttp: {address: \":" + port + "\"}\n")},
	} {
		code, out := runFor(t, time.Minute, args...)
		if code != exitError || !strings.Contains(out, "ui.tlsCertFile") || !strings.Contains(out, "not a loopback address") {
			t.Errorf("%s with ui.auth kubernetes and no TLS: exit %d, want %d naming ui.tlsCertFile:\n%s", name, code, exitError, out)
		}
	}

	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	pool := x509.NewCertPool()
	certFiles(t, certFile, keyFile, 1, pool)
	tlsFields := fmt.Sprintf("tlsCertFile: %q, tlsKeyFile: %q", certFile, keyFile)
	base, _ := startUI(t, "--config", withUI("ui: {auth: kubernetes, "+tlsFields+"}\n"), "--listen", "0.0.0.0:0")
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("roleout ui with TLS prints %s, want https://", base)
	}
	_, port, _ = net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(base, "https://"), "/"))
	login := "https://127.0.0.1:" + port + "/login"
	if code, serial := servedSerial(t, login, pool); code != http.StatusOK || serial != 1 {
		t.Errorf("GET /login over HTTPS: %d, certificate %d; want 200 and certificate 1", code, serial)
	}
	certFiles(t, certFile, keyFile, 2, pool)
	if code, serial := servedSerial(t, login, pool); code != http.StatusOK || serial != 2 {
		t.Errorf("after the files were replaced: %d, certificate %d; want 200 and certificate 2", code, serial)
	}

	// roleout run, the view on a loopback http.address with TLS: the
	// whole listener is HTTPS.
	addr := freeAddress(t)
	logs, _ := startAgent(t, withUI("ui: {"+tlsFields+"}\nhttp: {address: \""+addr+"\"}\n"))
	var code int
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if strings.Contains(logs.String(), "serving /healthz") {
			code, _ = servedSerial(t, "https://"+addr+"/healthz", pool)
			break
		}
	}
	if code != http.StatusOK {
		t.Errorf("roleout run with the view's TLS on http.address: GET https://%s/healthz: %d\n%s", addr, code, logs.String())
	}
}
