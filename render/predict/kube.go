// This file is the Kubernetes side of the predictions of the built-in
// workload kinds: the API server's defaulting and create-time field
// dropping, and the controllers' hash code. It imports nothing but the
// standard library and k8s.io modules, and names nothing of roleout's:
// hack/kubepredict copies it, unchanged but for its package clause, into
// the helper that predicts for another Kubernetes minor, built against
// that minor's k8s.io/kubernetes (kubeminors.go). One source, so the
// helper of a minor and the code roleout links cannot drift apart.

package predict

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/api/pod"
	appsinternal "k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install" // apps internal and v1 types, defaulters, conversions
	_ "k8s.io/kubernetes/pkg/apis/core/install" // core internal and v1 types, defaulters, conversions
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/history"
)

// KubeIdentity is what the Kubernetes controllers name a built-in
// workload's template by: a Deployment's pod-template-hash and
// ReplicaSet, a StatefulSet's ControllerRevision, a DaemonSet's
// controller-revision-hash. It is also the answer of a minor's helper
// (its JSON).
type KubeIdentity struct {
	PodTemplateHash        string `json:"podTemplateHash,omitempty"`
	ReplicaSetName         string `json:"replicaSetName,omitempty"`
	ControllerRevisionName string `json:"controllerRevisionName,omitempty"`
	ControllerRevisionHash string `json:"controllerRevisionHash,omitempty"`
	// Matches is what the controller finds the template's existing
	// revision by, as a digest, which a new Kubernetes version may change
	// while the hashes above change with it or not: for a DaemonSet the
	// revision patch (its controller compares a ControllerRevision's data
	// byte for byte), for a StatefulSet too where its controller does
	// (before the StatefulSetSemanticRevisionComparison gate), for a
	// Deployment, and a StatefulSet where that gate is on, the template
	// as given (the controller compares its template with the existing
	// one as the running API server serves and defaults both, so under
	// any version an unchanged template finds its revision). It reads
	// "patch:<digest>" or "template:<digest>", saying which.
	Matches string `json:"matches,omitempty"`
}

// digest is the Matches of data, compared as kind says: "patch" byte
// for byte, "template" semantically.
func digest(kind string, data []byte) string {
	sum := sha256.Sum256(data)
	return kind + ":" + hex.EncodeToString(sum[:16])
}

// KubeRequest is one workload sent to a minor's helper: its kind
// (Deployment, StatefulSet, DaemonSet), its apps/v1 JSON and its
// status.collisionCount.
type KubeRequest struct {
	Kind           string          `json:"kind"`
	Object         json.RawMessage `json:"object"`
	CollisionCount *int32          `json:"collisionCount,omitempty"`
}

// KubeAnswer is a helper's answer to one KubeRequest: the identity, or
// why there is none.
type KubeAnswer struct {
	Identity *KubeIdentity `json:"identity,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// kubePredict returns the identity the controller of kind (Deployment,
// StatefulSet or DaemonSet) gives the apps/v1 object js, with
// collisionCount its status.collisionCount (nil when unset).
func kubePredict(kind string, js []byte, collisionCount *int32) (KubeIdentity, error) {
	switch kind {
	case "Deployment":
		d := &appsv1.Deployment{}
		if err := asServed(js, d); err != nil {
			return KubeIdentity{}, err
		}
		matches, err := givenTemplate(js)
		if err != nil {
			return KubeIdentity{}, err
		}
		hash := controller.ComputeHash(&d.Spec.Template, collisionCount)
		return KubeIdentity{PodTemplateHash: hash, ReplicaSetName: replicaSetName(d.Name, hash), Matches: matches}, nil
	case "StatefulSet":
		return predictStatefulSet(js, collisionCount)
	case "DaemonSet":
		ds := &appsv1.DaemonSet{}
		if err := asServed(js, ds); err != nil {
			return KubeIdentity{}, err
		}
		data, err := json.Marshal(ds)
		if err != nil {
			return KubeIdentity{}, err
		}
		patch, err := templatePatch(data)
		if err != nil {
			return KubeIdentity{}, err
		}
		return KubeIdentity{ControllerRevisionHash: controller.ComputeHash(&ds.Spec.Template, collisionCount), Matches: digest("patch", patch)}, nil
	}
	return KubeIdentity{}, fmt.Errorf("no prediction for kind %s", kind)
}

// replicaSetName is the Deployment controller's name for a ReplicaSet:
// the Deployment's name, cut to fit a DNS subdomain, a dash and the hash.
func replicaSetName(deployment, hash string) string {
	max := 253 - 1 - len(hash)
	if len(deployment) > max && max > 0 {
		deployment = deployment[:max]
	}
	return deployment + "-" + hash
}

// stsPatchCodec encodes a StatefulSet the way its controller does before
// cutting the revision patch.
var stsPatchCodec = clientscheme.Codecs.LegacyCodec(appsv1.SchemeGroupVersion)

func predictStatefulSet(js []byte, collisionCount *int32) (KubeIdentity, error) {
	set := &appsv1.StatefulSet{}
	if err := asServed(js, set); err != nil {
		return KubeIdentity{}, err
	}
	data, err := runtime.Encode(stsPatchCodec, set)
	if err != nil {
		return KubeIdentity{}, err
	}
	patch, err := templatePatch(data)
	if err != nil {
		return KubeIdentity{}, err
	}
	// The StatefulSet controller always hashes with a collision count,
	// 0 when the status has none.
	var cc int32
	if collisionCount != nil {
		cc = *collisionCount
	}
	cr := &appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: patch}}
	id := KubeIdentity{ControllerRevisionName: history.ControllerRevisionName(set.Name, history.HashControllerRevision(cr, &cc)), Matches: digest("patch", patch)}
	if semanticStatefulSetRevisions() {
		if id.Matches, err = givenTemplate(js); err != nil {
			return KubeIdentity{}, err
		}
	}
	return id, nil
}

// semanticStatefulSetRevisions reports whether this release's
// StatefulSet controller, when a revision's bytes differ from the set's,
// restores the revision, defaults it and compares again (the
// StatefulSetSemanticRevisionComparison gate, the mitigation of the
// 1.34 serialization change, kubernetes #134773), so that a new
// serialization alone rolls nothing. The gate is looked up by name: a
// release before it has no such constant.
func semanticStatefulSetRevisions() bool {
	const gate = featuregate.Feature("StatefulSetSemanticRevisionComparison")
	all, ok := utilfeature.DefaultFeatureGate.(interface {
		GetAll() map[featuregate.Feature]featuregate.FeatureSpec
	})
	if !ok {
		return false
	}
	if _, known := all.GetAll()[gate]; !known {
		return false
	}
	return utilfeature.DefaultFeatureGate.Enabled(gate)
}

// givenTemplate is the Matches of the template of js as given.
func givenTemplate(js []byte) (string, error) {
	var given struct {
		Spec struct {
			Template json.RawMessage `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(js, &given); err != nil {
		return "", err
	}
	return digest("template", given.Spec.Template), nil
}

// templatePatch cuts a revision patch from an encoded workload the way
// the StatefulSet and DaemonSet controllers do (their getPatch, which is
// not exported): only spec.template, marked "$patch": "replace".
func templatePatch(data []byte) ([]byte, error) {
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	spec, _ := raw["spec"].(map[string]any)
	template, ok := spec["template"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no spec.template")
	}
	template["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
}

// protoObject is a v1 type with gogo protobuf methods.
type protoObject interface {
	runtime.Object
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// asServed fills out (a zero apps/v1 object) with js as the controller
// sees it: decoded and defaulted by the API server's scheme, converted to
// the internal version, prepared for create (generation 1, fields of
// disabled features dropped), converted back, and sent through protobuf,
// which stores quantities in canonical form and drops empty maps and
// lists. The spew-based Deployment and DaemonSet hashes see every one of
// those differences.
func asServed(js []byte, out protoObject) error {
	obj, _, err := legacyscheme.Codecs.UniversalDecoder(appsinternal.SchemeGroupVersion).Decode(js, nil, nil)
	if err != nil {
		return fmt.Errorf("decode as the API server does: %w", err)
	}
	switch in := obj.(type) {
	case *appsinternal.Deployment:
		in.Generation = 1
		pod.DropDisabledTemplateFields(&in.Spec.Template, nil)
	case *appsinternal.StatefulSet:
		in.Generation = 1
		pod.DropDisabledTemplateFields(&in.Spec.Template, nil)
	case *appsinternal.DaemonSet:
		in.Generation = 1
		in.Spec.TemplateGeneration = 1
		pod.DropDisabledTemplateFields(&in.Spec.Template, nil)
	default:
		return fmt.Errorf("unexpected type %T", obj)
	}
	stored := out.DeepCopyObject().(protoObject)
	if err := legacyscheme.Scheme.Convert(obj, stored, nil); err != nil {
		return fmt.Errorf("convert to apps/v1: %w", err)
	}
	wire, err := stored.Marshal()
	if err != nil {
		return err
	}
	// out is zero: protobuf decoding merges into what it is given.
	if err := out.Unmarshal(wire); err != nil {
		return err
	}
	legacyscheme.Scheme.Default(out)
	return nil
}
