package config

import (
	"strings"
	"testing"
)

// TestUITLS: the key pair comes in twos, and ui.auth kubernetes on an
// address that is not loopback needs it; on loopback it does not.
func TestUITLS(t *testing.T) {
	for name, c := range map[string]struct {
		yaml, want string
	}{
		"a certificate without its key":  {"ui: {tlsCertFile: /tls/crt}\n", "ui.tlsCertFile: ui.tlsCertFile and ui.tlsKeyFile go together"},
		"a key without its certificate":  {"ui: {tlsKeyFile: /tls/key}\n", "ui.tlsCertFile: ui.tlsCertFile and ui.tlsKeyFile go together"},
		"kubernetes off loopback, plain": {"ui: {auth: kubernetes, address: \"0.0.0.0:8090\"}\n", "ui.address: \"0.0.0.0:8090\" is not a loopback address, and ui.auth kubernetes would take readers' bearer tokens over plain HTTP: set ui.tlsCertFile and ui.tlsKeyFile"},
		"kubernetes off loopback, TLS":   {"ui: {auth: kubernetes, address: \"0.0.0.0:8090\", tlsCertFile: /tls/crt, tlsKeyFile: /tls/key}\n", ""},
		"kubernetes on loopback, plain":  {"ui: {auth: kubernetes, address: \"127.0.0.1:8090\"}\n", ""},
		"none on loopback, TLS":          {"ui: {address: \"127.0.0.1:8090\", tlsCertFile: /tls/crt, tlsKeyFile: /tls/key}\n", ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(minimalConfig+c.yaml), "agent.yaml")
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	u := UI{Auth: UIAuthKubernetes}
	for addr, ok := range map[string]bool{"127.0.0.1:8090": true, "[::1]:8090": true, "localhost:8090": true, ":8090": false, "10.0.0.1:8090": false} {
		if got := u.ListenerError(addr) == nil; got != ok {
			t.Errorf("ListenerError(%q) without TLS: nil = %v, want %v", addr, got, ok)
		}
	}
}
