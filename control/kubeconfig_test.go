package control

import (
	"strings"
	"testing"

	"github.com/roleout/roleout/config"
)

// secretKubeconfig is a kubeconfig as a Secret would hold it, with extra
// lines spliced into its user and its cluster.
func secretKubeconfig(user, cluster string) []byte {
	return []byte(`apiVersion: v1
kind: Config
current-context: prod
contexts:
- name: prod
  context: {cluster: eu, user: admin}
clusters:
- name: eu
  cluster:
    server: https://eu.example:6443
    certificate-authority-data: ` + testCA + `
` + cluster + `
users:
- name: admin
  user:
` + user + `
`)
}

// testCA is a base64 certificate-authority-data value; clientcmd does
// not parse it until a client connects.
const testCA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENCK3dJSkFKQT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="

func TestSecretKubeconfigRefusals(t *testing.T) {
	const where = `Secret roleout/prod-kubeconfig key "value"`
	cases := []struct {
		name          string
		user, cluster string
		server        string // replaces the https:// server when set
		// want are the parts of the error; none: accepted.
		want []string
	}{
		{name: "inline token is accepted", user: "    token: abc"},
		{name: "inline client certificate is accepted", user: "    client-certificate-data: " + testCA + "\n    client-key-data: " + testCA},
		{name: "basic auth and impersonation are accepted", user: "    username: u\n    password: p\n    as: someone"},
		{name: "exec plugin", user: "    exec: {apiVersion: client.authentication.k8s.io/v1, command: aws, args: [eks, get-token]}",
			want: []string{`kubeconfigSecret (` + where + `): user "admin" (context "prod") uses exec plugin "aws": kubeconfigs from Secrets may not run programs; set clusters.allowUnsafeKubeconfigs to allow it`}},
		{name: "auth provider", user: "    auth-provider: {name: gcp, config: {cmd-path: /bin/sh}}",
			want: []string{`user "admin" (context "prod") uses auth-provider "gcp": kubeconfigs from Secrets may not run programs`, "clusters.allowUnsafeKubeconfigs"}},
		{name: "token file", user: "    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token",
			want: []string{`user "admin" (context "prod") reads tokenFile "/var/run/secrets/kubernetes.io/serviceaccount/token": kubeconfigs from Secrets may not read the agent's files`, "clusters.allowUnsafeKubeconfigs"}},
		{name: "client certificate file", user: "    client-certificate: /etc/agent/tls.crt\n    client-key-data: " + testCA,
			want: []string{`user "admin" (context "prod") reads client-certificate "/etc/agent/tls.crt"`}},
		{name: "client key file", user: "    client-certificate-data: " + testCA + "\n    client-key: /etc/agent/tls.key",
			want: []string{`user "admin" (context "prod") reads client-key "/etc/agent/tls.key"`}},
		{name: "certificate authority file", user: "    token: abc", cluster: "    certificate-authority: /etc/agent/ca.crt",
			want: []string{`cluster "eu" (context "prod") reads certificate-authority "/etc/agent/ca.crt"`, "clusters.allowUnsafeKubeconfigs"}},
		{name: "insecure TLS", user: "    token: abc", cluster: "    insecure-skip-tls-verify: true",
			want: []string{`cluster "eu" (context "prod") sets insecure-skip-tls-verify: kubeconfigs from Secrets must verify the server's certificate`, "clusters.allowUnsafeKubeconfigs"}},
		{name: "plain http server", user: "    token: abc", server: "http://eu.example:8080",
			want: []string{`cluster "eu" (context "prod") has server "http://eu.example:8080": kubeconfigs from Secrets must name an https:// server`, "clusters.allowUnsafeKubeconfigs"}},
		{name: "proxy", user: "    token: abc", cluster: "    proxy-url: http://proxy.example:3128",
			want: []string{`cluster "eu" (context "prod") sets proxy-url: kubeconfigs from Secrets may not send the agent's requests through a proxy they choose`}},
		{name: "every refusal is reported", user: "    tokenFile: /t\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: sh}",
			want: []string{`uses exec plugin "sh"`, `reads tokenFile "/t"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := secretKubeconfig(tc.user, tc.cluster)
			if tc.server != "" {
				data = []byte(strings.Replace(string(data), "https://eu.example:6443", tc.server, 1))
			}
			cfg, err := ClientConfig(data, where, false)
			if len(tc.want) == 0 {
				if err != nil || cfg.Host != "https://eu.example:6443" {
					t.Fatalf("refused a safe kubeconfig: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want an error with %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain\n%s", err, w)
				}
			}
			if _, err := ClientConfig(data, where, true); err != nil && strings.Contains(err.Error(), config.UnsafeKubeconfigHint) {
				t.Errorf("clusters.allowUnsafeKubeconfigs does not allow it: %v", err)
			}
		})
	}
}

// TestSecretKubeconfigChecksEveryUser: a user or cluster no context
// names is refused too, since which one clientcmd picks is not the
// Secret's author's to decide.
func TestSecretKubeconfigChecksEveryUser(t *testing.T) {
	data := []byte(string(secretKubeconfig("    token: abc", "")) + `- name: spare
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: curl}
`)
	_, err := ClientConfig(data, "Secret s/k", false)
	if err == nil || !strings.Contains(err.Error(), `user "spare" uses exec plugin "curl"`) {
		t.Errorf("got %v, want the unused user refused", err)
	}
}
