package object

// ClusterVersions are the versions a cluster runs: read by apply from the
// cluster, compared by render/predict with the versions roleout models.
// "" is unknown, never skew.
type ClusterVersions struct {
	// Kubernetes is the API server's version (its gitVersion: v1.37.2).
	Kubernetes string
	// Controllers are the custom workload controllers' versions, by
	// ControllerDeployment.Name (the tag of their image: v0.9.0).
	Controllers map[string]string
}

// ControllerDeployment locates a workload controller by the Deployment
// of its default install: the tag of container Container's image is the
// controller's version.
type ControllerDeployment struct {
	// Name names the controller in messages and ClusterVersions.
	Name string
	// Namespace, Deployment and Container locate it.
	Namespace, Deployment, Container string
}
