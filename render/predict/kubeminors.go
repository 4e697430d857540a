package predict

import (
	"fmt"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/schema"
)

// Minors predicts the built-in kinds for Kubernetes minors other than the
// one roleout links (schema.KubernetesVersion), each with that minor's
// own code: kube.go built against its k8s.io/kubernetes, run as a helper
// process (render/kubeminor, built by hack/kubepredict).
type Minors interface {
	// Models reports whether it predicts for minor ("1.36").
	Models(minor string) bool
	// Predict is kubePredict at minor.
	Predict(minor, kind string, object []byte, collisionCount *int32) (KubeIdentity, error)
}

// Minor returns the "major.minor" of a Kubernetes version (v1.36.3,
// 1.36, v1.36.3-gke.1), "" when it is not one.
func Minor(version string) string {
	v, err := utilversion.ParseGeneric(version)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d.%d", v.Major(), v.Minor())
}

// LinkedMinor is the Kubernetes minor whose code roleout links.
func LinkedMinor() string { return Minor(schema.KubernetesVersion) }

// helperMinor returns the minor whose helper predicts the built-in kinds
// for a cluster at v: v's, when it is not the linked one and minors
// models it; "" for the linked code.
func helperMinor(v object.ClusterVersions, minors Minors) string {
	m := Minor(v.Kubernetes)
	if m == "" || m == LinkedMinor() || minors == nil || !minors.Models(m) {
		return ""
	}
	return m
}
