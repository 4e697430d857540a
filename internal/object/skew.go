package object

import "fmt"

// Skew is a version a cluster runs that differs from the one roleout
// models; the zero Skew is none.
type Skew struct {
	// Component is "Kubernetes" or a controller's name
	// (ControllerDeployment.Name).
	Component string
	// Cluster is the version the cluster runs, Modelled the one roleout
	// models.
	Cluster, Modelled string
}

// IsZero reports whether s is no skew.
func (s Skew) IsZero() bool { return s == Skew{} }

// String is the reason a prediction under s is unverified: "the cluster
// runs lws v0.8.1; roleout models v0.9.0".
func (s Skew) String() string {
	if s.IsZero() {
		return ""
	}
	return fmt.Sprintf("the cluster runs %s %s; roleout models %s", s.Component, s.Cluster, s.Modelled)
}
