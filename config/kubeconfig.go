package config

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// UnsafeKubeconfigHint ends every refusal of CheckKubeconfig.
const UnsafeKubeconfigHint = "set clusters.allowUnsafeKubeconfigs to allow it"

// CheckKubeconfig refuses a kubeconfig read from a Secret that would make
// the agent run a program (exec and auth-provider plugins), read one of
// its own files (tokenFile, client-certificate, client-key,
// certificate-authority: the agent's service account token among them)
// or skip verifying the server's certificate, as Flux does since
// CVE-2022-24817. Every user and cluster of the file is checked, not only
// the current context's, and each refusal names the user or cluster, the
// contexts that use it, and the field. It is pure: it reads raw only.
func CheckKubeconfig(raw *clientcmdapi.Config) error {
	var errs []error
	refuse := func(what, name string, byContext map[string][]string, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s %q%s %s; %s", what, name, usedBy(byContext[name]), fmt.Sprintf(format, args...), UnsafeKubeconfigHint))
	}
	users, clusters := map[string][]string{}, map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(raw.Contexts)) {
		if c := raw.Contexts[name]; c != nil {
			users[c.AuthInfo] = append(users[c.AuthInfo], name)
			clusters[c.Cluster] = append(clusters[c.Cluster], name)
		}
	}
	const noPrograms, noFiles = "kubeconfigs from Secrets may not run programs", "kubeconfigs from Secrets may not read the agent's files"
	for _, name := range slices.Sorted(maps.Keys(raw.AuthInfos)) {
		u := raw.AuthInfos[name]
		if u == nil {
			continue
		}
		if u.Exec != nil {
			refuse("user", name, users, "uses exec plugin %q: %s", u.Exec.Command, noPrograms)
		}
		if u.AuthProvider != nil {
			refuse("user", name, users, "uses auth-provider %q: %s", u.AuthProvider.Name, noPrograms)
		}
		for _, f := range []struct{ field, path string }{
			{"tokenFile", u.TokenFile}, {"client-certificate", u.ClientCertificate}, {"client-key", u.ClientKey},
		} {
			if f.path != "" {
				refuse("user", name, users, "reads %s %q: %s (put the data inline)", f.field, f.path, noFiles)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(raw.Clusters)) {
		c := raw.Clusters[name]
		if c == nil {
			continue
		}
		if c.CertificateAuthority != "" {
			refuse("cluster", name, clusters, "reads certificate-authority %q: %s (use certificate-authority-data)", c.CertificateAuthority, noFiles)
		}
		if c.InsecureSkipTLSVerify {
			refuse("cluster", name, clusters, "sets insecure-skip-tls-verify: kubeconfigs from Secrets must verify the server's certificate (add certificate-authority-data)")
		}
		if u, err := url.Parse(c.Server); err != nil || u.Scheme != "https" {
			refuse("cluster", name, clusters, "has server %q: kubeconfigs from Secrets must name an https:// server, whose certificate is verified", c.Server)
		}
		if c.ProxyURL != "" {
			refuse("cluster", name, clusters, "sets proxy-url: kubeconfigs from Secrets may not send the agent's requests through a proxy they choose")
		}
	}
	return errors.Join(errs...)
}

// usedBy says which contexts use a user or cluster: ` (context "prod")`.
func usedBy(contexts []string) string {
	switch len(contexts) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" (context %q)", contexts[0])
	default:
		return fmt.Sprintf(" (contexts %q)", contexts)
	}
}
