package revision

import (
	"fmt"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// The versions of the code roleout links and models, as go.mod requires
// them (TestModelledVersionsAreGoMod checks them against go list -m).
const (
	// KubernetesVersion is k8s.io/kubernetes: the apps types, defaulting
	// and controller hash code of the Deployment, StatefulSet and
	// DaemonSet predictions. A cluster of another minor version is skew.
	KubernetesVersion = "v1.37.2"
	// LWSVersion is sigs.k8s.io/lws: the LeaderWorkerSet CRD and
	// template-revision-hash code.
	LWSVersion = "v0.9.0"
	// AibrixVersion is github.com/vllm-project/aibrix: the StormService
	// CRD and revision code.
	AibrixVersion = "v0.6.0"
)

// Controller is a custom workload controller roleout models, and where
// its default install runs it: its kustomize config (config/default)
// puts Deployment Deployment, with the controller in container
// Container, in Namespace.
type Controller struct {
	// Name names the controller in messages and ClusterVersions.
	Name string
	// Module and Version are the Go module roleout links.
	Module, Version string
	// Kinds are the group/kinds it manages ("LeaderWorkerSet.leaderworkerset.x-k8s.io").
	Kinds []string
	// Namespace, Deployment and Container locate the controller.
	Namespace, Deployment, Container string
}

// Controllers returns the custom workload controllers roleout models.
func Controllers() []Controller {
	return []Controller{
		{Name: "lws", Module: "sigs.k8s.io/lws", Version: LWSVersion,
			Kinds:     []string{"LeaderWorkerSet.leaderworkerset.x-k8s.io"},
			Namespace: "lws-system", Deployment: "lws-controller-manager", Container: "manager"},
		{Name: "aibrix", Module: "github.com/vllm-project/aibrix", Version: AibrixVersion,
			Kinds:     []string{"StormService.orchestration.aibrix.ai"},
			Namespace: "aibrix-system", Deployment: "aibrix-controller-manager", Container: "manager"},
	}
}

// ClusterVersions are the versions a cluster runs; "" is unknown, never
// skew.
type ClusterVersions struct {
	// Kubernetes is the API server's version (its gitVersion: v1.37.2).
	Kubernetes string
	// Controllers are the custom workload controllers' versions, by
	// Controller.Name (the tag of their image: v0.9.0).
	Controllers map[string]string
}

// Skew is a version a cluster runs that differs from the one roleout
// models; the zero Skew is none.
type Skew struct {
	// Component is "Kubernetes" or a Controller.Name.
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

// SkewFor returns the skew between v and what roleout models that
// affects the predictions of group/kind gk ("Deployment.apps"): a
// Kubernetes minor version other than KubernetesVersion's for the apps
// kinds, a controller version other than the one linked for the custom
// kinds. Unknown or unparsable versions are no skew.
func (v ClusterVersions) SkewFor(gk string) Skew {
	if strings.HasSuffix(gk, ".apps") {
		return kubernetesSkew(v.Kubernetes)
	}
	for _, c := range Controllers() {
		for _, k := range c.Kinds {
			if k == gk {
				return controllerSkew(c, v.Controllers[c.Name])
			}
		}
	}
	return Skew{}
}

// kubernetesSkew compares the minor version of a server's gitVersion
// with KubernetesVersion's.
func kubernetesSkew(server string) Skew {
	got, err := utilversion.ParseGeneric(server)
	if err != nil {
		return Skew{}
	}
	want := utilversion.MustParseGeneric(KubernetesVersion)
	if got.Major() == want.Major() && got.Minor() == want.Minor() {
		return Skew{}
	}
	return Skew{Component: "Kubernetes", Cluster: server, Modelled: fmt.Sprintf("v%d.%d", want.Major(), want.Minor())}
}

// controllerSkew compares a controller's version (an image tag: v0.8.1
// or 0.8.1) with the one roleout links; a tag that is not a semantic
// version (latest, main, release-0.9) says nothing.
func controllerSkew(c Controller, tag string) Skew {
	got, err := utilversion.ParseSemantic(strings.TrimPrefix(tag, "v"))
	if err != nil {
		return Skew{}
	}
	want := utilversion.MustParseSemantic(c.Version)
	if got.EqualTo(want) {
		return Skew{}
	}
	return Skew{Component: c.Name, Cluster: "v" + strings.TrimPrefix(tag, "v"), Modelled: c.Version}
}
