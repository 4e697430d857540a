package validate

import "k8s.io/kubernetes/pkg/capabilities"

// The API server's pod validation reads one setting of the server's
// own configuration, process-wide: --allow-privileged, which decides
// whether a container may be privileged (securityContext.privileged) and
// a Windows pod may run HostProcess containers. kube-apiserver's default
// is false, but kubeadm, kind, k3s, minikube and the managed clusters
// (EKS, GKE, AKS) all run it with --allow-privileged=true, as the local
// control plane of roleout's tests does; their CNI, CSI node plugins and
// node exporters depend on it. Validation offline is that of such a
// server: privileged containers pass, as the cluster's server-side dry
// run (the judge wherever a cluster is at hand) lets them.
//
// Nothing else the API server validates depends on its flags: host
// network, PID and IPC namespaces (capabilities.PrivilegedSources) and
// unsafe sysctls are the kubelet's to allow, not the API server's, and
// Pod Security admission is the cluster's policy, not its validation.
//
// capabilities.Initialize takes effect once per process, so it runs when
// this package is loaded, before any validation reads the setting.
func init() {
	capabilities.Initialize(capabilities.Capabilities{AllowPrivileged: true})
}
