package schema

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
