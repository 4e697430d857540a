package predict

import (
	"fmt"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/schema"
)

// Controller is a custom workload controller roleout models, and where
// its default install runs it: its kustomize config (config/default)
// puts Deployment Deployment, with the controller in container
// Container, in Namespace.
type Controller struct {
	// ControllerDeployment names the controller and locates it.
	object.ControllerDeployment
	// Module and Version are the Go module roleout links.
	Module, Version string
	// Kinds are the group/kinds it manages ("LeaderWorkerSet.leaderworkerset.x-k8s.io").
	Kinds []string
}

// Controllers returns the custom workload controllers roleout models.
func Controllers() []Controller {
	return []Controller{
		{ControllerDeployment: object.ControllerDeployment{Name: "lws", Namespace: "lws-system", Deployment: "lws-controller-manager", Container: "manager"},
			Module: "sigs.k8s.io/lws", Version: schema.LWSVersion, Kinds: []string{"LeaderWorkerSet.leaderworkerset.x-k8s.io"}},
		{ControllerDeployment: object.ControllerDeployment{Name: "aibrix", Namespace: "aibrix-system", Deployment: "aibrix-controller-manager", Container: "manager"},
			Module: "github.com/vllm-project/aibrix", Version: schema.AibrixVersion, Kinds: []string{"StormService.orchestration.aibrix.ai"}},
	}
}

// SkewFor returns the skew between v, the versions a cluster runs, and
// what roleout models that affects the predictions of group/kind gk
// ("Deployment.apps"): for the apps kinds a Kubernetes minor other than
// schema.KubernetesVersion's that minors has no helper for, for the
// custom kinds a controller version other than the one linked. Unknown
// or unparsable versions are no skew.
func SkewFor(v object.ClusterVersions, gk string, minors Minors) object.Skew {
	if strings.HasSuffix(gk, ".apps") {
		if helperMinor(v, minors) != "" {
			return object.Skew{}
		}
		return kubernetesSkew(v.Kubernetes)
	}
	for _, c := range Controllers() {
		for _, k := range c.Kinds {
			if k == gk {
				return controllerSkew(c, v.Controllers[c.Name])
			}
		}
	}
	return object.Skew{}
}

// kubernetesSkew compares the minor version of a server's gitVersion
// with schema.KubernetesVersion's.
func kubernetesSkew(server string) object.Skew {
	got, err := utilversion.ParseGeneric(server)
	if err != nil {
		return object.Skew{}
	}
	want := utilversion.MustParseGeneric(schema.KubernetesVersion)
	if got.Major() == want.Major() && got.Minor() == want.Minor() {
		return object.Skew{}
	}
	return object.Skew{Component: "Kubernetes", Cluster: server, Modelled: fmt.Sprintf("v%d.%d", want.Major(), want.Minor())}
}

// controllerSkew compares a controller's version (an image tag: v0.8.1
// or 0.8.1) with the one roleout links; a tag that is not a semantic
// version (latest, main, release-0.9) says nothing.
func controllerSkew(c Controller, tag string) object.Skew {
	got, err := utilversion.ParseSemantic(strings.TrimPrefix(tag, "v"))
	if err != nil {
		return object.Skew{}
	}
	want := utilversion.MustParseSemantic(c.Version)
	if got.EqualTo(want) {
		return object.Skew{}
	}
	return object.Skew{Component: c.Name, Cluster: "v" + strings.TrimPrefix(tag, "v"), Modelled: c.Version}
}
