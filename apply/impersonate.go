package apply

import (
	"fmt"

	"k8s.io/client-go/rest"
)

// ServiceAccountUser is the user name Kubernetes gives the service
// account namespace/name.
func ServiceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// As returns an Applier for the same cluster that makes every request as
// user, by impersonation: what it may read or write is what RBAC grants
// user, not the Applier's own identity. The caller's identity needs the
// impersonate verb on that user (for a service account: on the
// serviceaccounts resource, by name).
func (a *Applier) As(user string) (*Applier, error) {
	if user == "" {
		return nil, fmt.Errorf("impersonate: no user given")
	}
	cfg := rest.CopyConfig(a.cfg)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	return New(cfg, a.opts)
}
