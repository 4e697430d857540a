package config

import (
	"os"
	"strings"
)

// ServiceAccountNamespaceFile is where a pod learns its own namespace.
const ServiceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// ClusterRevisions puts the role revisions recorded on the status
// branch into the agent's cluster as well, as ControllerRevisions, so that
// `kubectl get controllerrevisions -l roleout.dev/app=NAME` shows an app's
// history. The status branch stays the record; a failure to write them is
// a warning.
type ClusterRevisions struct {
	// Enabled turns them on. Default true.
	Enabled *bool `json:"enabled,omitempty"`
	// Namespace holds them. Default: the namespace the agent runs in, or
	// "default" outside a cluster.
	Namespace string `json:"namespace,omitempty"`
}

// On reports whether revisions go to the cluster (enabled, default true).
func (c *ClusterRevisions) On() bool {
	return c == nil || c.Enabled == nil || *c.Enabled
}

// AgentNamespace returns the agent's namespace, where the revisions go and
// the mask key and the control ConfigMap are kept:
// status.clusterRevisions.namespace, else the namespace the agent runs
// in, else default.
func (c *ClusterRevisions) AgentNamespace() string {
	if c != nil && c.Namespace != "" {
		return c.Namespace
	}
	if data, err := os.ReadFile(ServiceAccountNamespaceFile); err == nil && strings.TrimSpace(string(data)) != "" {
		return strings.TrimSpace(string(data))
	}
	return "default"
}
