package apply

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestPodMessage(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq5Hp\nx0Zt9kQ==\n-----END RSA PRIVATE KEY-----"
	cases := []struct{ name, in, want string }{
		{name: "plain message kept", in: `Back-off pulling image "api:9"`, want: `Back-off pulling image "api:9"`},
		{name: "kubernetes names kept", in: "Back-off 5m0s restarting failed container=app pod=api-7d4b9c8f5-x2v9q_shop(1b4e28ba-2fa1-11d2-883f-0016d3cca427)",
			want: "Back-off 5m0s restarting failed container=app pod=api-7d4b9c8f5-x2v9q_shop(1b4e28ba-2fa1-11d2-883f-0016d3cca427)"},
		{name: "one line", in: "panic: boom\n\ngoroutine 1 [running]:\r\n\tmain.main()\x1b[31m", want: "panic: boom goroutine 1 [running]: main.main() [31m"},
		{name: "password=", in: "connect failed: password=hunter2 user=app", want: "connect failed: password=[redacted] user=app"},
		{name: "DB_PASSWORD in env dump", in: "DB_PASSWORD=s3cr3t!x HOME=/root", want: "DB_PASSWORD=[redacted] HOME=/root"},
		{name: "token: yaml", in: "config:\n  token: abc.def\n  url: x", want: "config: token: [redacted] url: x"},
		{name: "json api key", in: `{"apiKey": "sk live 123", "ok": true}`, want: `{"apiKey": [redacted], "ok": true}`},
		{name: "quoted secret", in: "client_secret='a b c' next", want: "client_secret=[redacted] next"},
		{name: "authorization bearer", in: "GET / Authorization: Bearer eyJhbGciOi.eyJzdWIi.c2lnbmF0dXJl -> 401", want: "GET / Authorization: [redacted] -> 401"},
		{name: "authorization basic", in: "authorization=Basic dXNlcjpwYXNz;", want: "authorization=[redacted];"},
		{name: "bare bearer", in: "sent bearer abcDEF123._-~+/= upstream", want: "sent bearer [redacted] upstream"},
		{name: "url with user and password", in: "dial postgres://app:hunter2@db.shop:5432/app failed", want: "dial postgres://[redacted]@db.shop:5432/app failed"},
		{name: "url with a token as user", in: "clone https://ghp_x@github.com/org/repo", want: "clone https://[redacted]@github.com/org/repo"},
		{name: "url without user info kept", in: "GET https://api.example.com/v1/items?page=2", want: "GET https://api.example.com/v1/items?page=2"},
		{name: "pem block", in: "key:\n" + pem + "\ndone", want: "key: [redacted] done"},
		{name: "pem block cut short by the log tail", in: "loaded -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5v", want: "loaded [redacted]"},
		{name: "hex key", in: "aes key 00112233445566778899aabbccddeeff in use", want: "aes key [redacted] in use"},
		{name: "hex inside a name", in: "api-00112233445566778899aabbccddeeff", want: "api-[redacted]"},
		{name: "short hex kept", in: "pod-template-hash 7d4b9c8f5", want: "pod-template-hash 7d4b9c8f5"},
		{name: "base64 run", in: "got QWxhZGRpbjpvcGVuIHNlc2FtZQ== back", want: "got [redacted] back"},
		{name: "jwt", in: "jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
			want: "jwt [redacted].[redacted].[redacted]"},
		{name: "long words kept", in: "ProgressDeadlineExceeded NewReplicaSetAvailable containers-with-unready-status", want: "ProgressDeadlineExceeded NewReplicaSetAvailable containers-with-unready-status"},
		{name: "invalid utf-8", in: "bad \xff byte", want: "bad ? byte"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, podMessage(tc.in)); diff != "" {
				t.Errorf("podMessage(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// TestPodMessageLength: a message is cut to maxPodMessage bytes on a
// character boundary, after redaction, so a cut never leaves part of a
// credential that a whole one would have hidden.
func TestPodMessageLength(t *testing.T) {
	cases := []struct {
		name, in string
		wantLen  int // bytes
	}{
		{name: "short", in: "exit 1", wantLen: 6},
		{name: "exactly the limit", in: strings.Repeat("x", maxPodMessage), wantLen: maxPodMessage},
		{name: "ascii log tail", in: strings.Repeat("line of log\n", 100), wantLen: maxPodMessage},
		{name: "multi-byte characters", in: strings.Repeat("é", 300), wantLen: maxPodMessage - 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := podMessage(tc.in)
			if len(got) != tc.wantLen || !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r") {
				t.Errorf("podMessage: %d bytes (want %d), valid UTF-8 %v: %q", len(got), tc.wantLen, utf8.ValidString(got), got)
			}
			if len(tc.in) > maxPodMessage && !strings.HasSuffix(got, "…") {
				t.Errorf("a cut message does not end with …: %q", got)
			}
		})
	}
	// A key that straddles the limit is redacted whole, not cut in half.
	in := strings.Repeat("x ", 120) + "password=" + strings.Repeat("Zq9", 20)
	if got := podMessage(in); strings.Contains(got, "Zq9") {
		t.Errorf("part of the password survived the cut: %q", got)
	}
}

// TestPodTroubleScrubs: a pod's termination message (or, with
// FallbackToLogsOnError, its log tail) and its conditions reach the
// not-ready error only through podMessage and statusText.
func TestPodTroubleScrubs(t *testing.T) {
	tail := strings.Repeat("retrying\\n", 40)
	pod := obj(t, `apiVersion: v1
kind: Pod
metadata: {name: p}
status:
  phase: Running
  conditions: [{type: Ready, status: "False", reason: ContainersNotReady, message: "db at postgres://app:hunter2@db:5432\nfailed"}]
  containerStatuses:
  - name: api
    state: {terminated: {reason: Error, exitCode: 1, message: "export TOKEN=abc123\n`+tail+`"}}
`)
	got := podTrouble(pod)
	for _, leak := range []string{"hunter2", "abc123", "\n"} {
		if strings.Contains(got, leak) {
			t.Errorf("pod trouble carries %q: %q", leak, got)
		}
	}
	want := "Ready=False ContainersNotReady: db at postgres://[redacted]@db:5432 failed; container api Error: export TOKEN=[redacted] retrying"
	if !strings.HasPrefix(got, want) || len(got) > len("Ready=False ContainersNotReady: db at postgres://[redacted]@db:5432 failed; container api Error: ")+maxPodMessage {
		t.Errorf("pod trouble:\n%q\nwant it to start with\n%q\nand the container message cut to %d bytes", got, want, maxPodMessage)
	}
}
