package predict

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/api/pod"
	appsinternal "k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install" // apps internal and v1 types, defaulters, conversions
	_ "k8s.io/kubernetes/pkg/apis/core/install" // core internal and v1 types, defaulters, conversions
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/history"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/schema"
)

// Options are the live inputs of a prediction.
type Options struct {
	// CollisionCount is the workload's status.collisionCount as the
	// cluster has it; nil when the cluster is not reachable or the field
	// is unset (the controllers then use none, or 0).
	CollisionCount *int32
	// Sources are where a custom workload's CRD, which gives its schema
	// defaults and pruning, may come from; with none, it is predicted
	// without a schema, and unverified.
	schema.Sources
	// Cluster are the versions the cluster runs, when known: a
	// prediction whose code differs from them is unverified (SkewFor).
	Cluster object.ClusterVersions
}

// Outcome is a prediction and what it rests on.
type Outcome struct {
	// Prediction is the identity predicted; zero when the workload
	// cannot be predicted at all (Unverified says why).
	Prediction object.Identity
	// Schema is where the schema applied came from: schema.SchemaBuiltin for
	// the apps kinds; for a custom kind the CRD's source, "" when none
	// was found.
	Schema schema.Schema
	// Unverified, when set, says why Prediction may not be the identity
	// the controller will compute: no schema for a custom kind, or a
	// template the modelled code does not produce (a webhook roleout does
	// not model rewrites it), or the cluster runs another version of the
	// code than roleout models (Skew).
	Unverified string
	// Skew, when not zero, is the version skew that makes the prediction
	// unverified (Options.Cluster).
	Skew object.Skew
}

// IsWorkload reports whether Predict knows o's kind and can predict o
// (not a StormService whose template aibrix's webhook rewrites).
func IsWorkload(o *unstructured.Unstructured) bool {
	return IsWorkloadKind(o) && unmodelled(o) == ""
}

// IsWorkloadKind reports whether o is of a kind whose workloads roleout
// predicts: plans list every such object, with its prediction or as
// unverified (PredictOutcome).
func IsWorkloadKind(o *unstructured.Unstructured) bool {
	_, ok := predictors[o.GroupVersionKind().GroupKind().String()]
	return ok
}

// WorkloadKinds returns the group/kinds ("Deployment.apps") roleout
// predicts, sorted.
func WorkloadKinds() []string {
	return slices.Sorted(maps.Keys(predictors))
}

// predictor computes the prediction for one group/kind. crd is the
// schema of a custom kind (nil when none was found); the apps kinds have
// theirs compiled in and get nil.
type predictor struct {
	predict func(o, crd *unstructured.Unstructured, opts Options) (object.Identity, error)
	// custom says the kind is a custom resource, whose schema is a CRD.
	custom bool
}

// predictors computes a prediction per group/kind. apply's observers
// table has the same kinds: adding a workload kind is an entry in each
// (doc.go).
var predictors = map[string]predictor{
	"Deployment.apps":                          {predict: predictDeployment},
	"StatefulSet.apps":                         {predict: predictStatefulSet},
	"DaemonSet.apps":                           {predict: predictDaemonSet},
	"LeaderWorkerSet.leaderworkerset.x-k8s.io": {predict: predictLeaderWorkerSet, custom: true},
	"StormService.orchestration.aibrix.ai":     {predict: predictStormService, custom: true},
}

// Predict returns the identity o's controller will compute for o's
// template, exactly: the built-in kinds go through the same defaulting,
// create-time field dropping and protobuf round trip the object makes on
// its way through the API server to the controller, and then through the
// controller's own hash code (k8s.io/kubernetes v1.37.2, linked); the
// custom kinds through their CRD's schema and their controllers' code
// (predict_lws.go, predict_storm.go). It returns an error for a kind it
// does not know and for a workload it cannot predict at all; see
// PredictOutcome for where the schema came from and whether the
// prediction is verified.
func Predict(o *unstructured.Unstructured, opts Options) (object.Identity, error) {
	out, err := PredictOutcome(o, opts)
	if err != nil {
		return object.Identity{}, err
	}
	if out.Prediction.Equal(object.Identity{}) && out.Unverified != "" {
		return object.Identity{}, fmt.Errorf("%s %s/%s: not predicted: %s", o.GetKind(), o.GetNamespace(), o.GetName(), out.Unverified)
	}
	return out.Prediction, nil
}

// PredictOutcome predicts o as Predict does and says what the
// prediction rests on. A custom workload's schema is the CRD in the
// render, else the cluster's, else the one built in (schemaFor); with
// none, it is predicted without schema defaults and unverified. A
// workload whose template a webhook roleout does not model rewrites has
// no prediction and is unverified. A workload whose code the cluster runs
// at another version than roleout models (opts.Cluster) is unverified
// too, with Skew set.
func PredictOutcome(o *unstructured.Unstructured, opts Options) (Outcome, error) {
	gvk := o.GroupVersionKind()
	p, ok := predictors[gvk.GroupKind().String()]
	if !ok {
		return Outcome{}, fmt.Errorf("%s/%s: no prediction for kind %s", o.GetKind(), o.GetName(), gvk)
	}
	skew := SkewFor(opts.Cluster, gvk.GroupKind().String())
	if why := unmodelled(o); why != "" {
		return Outcome{Unverified: joinReasons(why, skew.String()), Skew: skew}, nil
	}
	out := Outcome{Schema: schema.SchemaBuiltin, Skew: skew}
	var crd *unstructured.Unstructured
	if p.custom {
		var err error
		if crd, out.Schema, err = schema.For(o, opts.Sources); err != nil {
			return Outcome{}, err
		}
		if crd == nil {
			out.Unverified = fmt.Sprintf("no CRD for %s.%s %s in the render, the cluster or built in: predicted without its schema's defaults",
				gvk.Kind, gvk.Group, gvk.Version)
		}
	}
	pred, err := p.predict(o, crd, opts)
	if err != nil {
		return Outcome{}, fmt.Errorf("predict %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
	}
	out.Prediction = pred
	out.Unverified = joinReasons(out.Unverified, skew.String())
	return out, nil
}

// joinReasons joins the reasons a prediction is unverified that are set.
func joinReasons(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// unmodelled says why roleout cannot predict workload o of a known kind,
// "" when it can.
func unmodelled(o *unstructured.Unstructured) string {
	if o.GroupVersionKind().GroupKind().String() == "StormService.orchestration.aibrix.ai" {
		return stormUnmodelled(o)
	}
	return ""
}

func predictDeployment(o, _ *unstructured.Unstructured, opts Options) (object.Identity, error) {
	d := &appsv1.Deployment{}
	if err := asServed(o, d); err != nil {
		return object.Identity{}, err
	}
	hash := controller.ComputeHash(&d.Spec.Template, opts.CollisionCount)
	return object.Identity{PodTemplateHash: hash, ReplicaSetName: replicaSetName(d.Name, hash)}, nil
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

func predictStatefulSet(o, _ *unstructured.Unstructured, opts Options) (object.Identity, error) {
	set := &appsv1.StatefulSet{}
	if err := asServed(o, set); err != nil {
		return object.Identity{}, err
	}
	data, err := runtime.Encode(stsPatchCodec, set)
	if err != nil {
		return object.Identity{}, err
	}
	patch, err := templatePatch(data)
	if err != nil {
		return object.Identity{}, err
	}
	// The StatefulSet controller always hashes with a collision count,
	// 0 when the status has none.
	var cc int32
	if opts.CollisionCount != nil {
		cc = *opts.CollisionCount
	}
	cr := &appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: patch}}
	return object.Identity{ControllerRevisionName: history.ControllerRevisionName(set.Name, history.HashControllerRevision(cr, &cc))}, nil
}

func predictDaemonSet(o, _ *unstructured.Unstructured, opts Options) (object.Identity, error) {
	ds := &appsv1.DaemonSet{}
	if err := asServed(o, ds); err != nil {
		return object.Identity{}, err
	}
	return object.Identity{ControllerRevisionHash: controller.ComputeHash(&ds.Spec.Template, opts.CollisionCount)}, nil
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

// asServed fills out (a zero apps/v1 object) with o as the controller
// sees it: decoded and defaulted by the API server's scheme, converted to
// the internal version, prepared for create (generation 1, fields of
// disabled features dropped), converted back, and sent through protobuf,
// which stores quantities in canonical form and drops empty maps and
// lists. The spew-based Deployment and DaemonSet hashes see every one of
// those differences.
func asServed(o *unstructured.Unstructured, out protoObject) error {
	js, err := o.MarshalJSON()
	if err != nil {
		return err
	}
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
