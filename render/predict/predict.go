package predict

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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
	// Minors, when set, predicts the built-in kinds for a cluster at
	// another Kubernetes minor than the linked one, with that minor's
	// code: such a prediction is verified. Without it, or for a minor it
	// does not model, the prediction is the linked code's, unverified.
	Minors Minors
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
	// Matches, for a built-in kind, is what its controller finds the
	// template's existing revision by (KubeIdentity.Matches): two
	// versions that give it the same Matches do not roll it, whatever
	// they name it.
	Matches string
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
// schema of a custom kind (nil when none was found). The apps kinds have
// no predict: predictBuiltin predicts them, with their schema compiled
// in.
type predictor struct {
	predict func(o, crd *unstructured.Unstructured, opts Options) (object.Identity, error)
	// custom says the kind is a custom resource, whose schema is a CRD.
	custom bool
}

// predictors computes a prediction per group/kind. apply's observers
// table has the same kinds: adding a workload kind is an entry in each
// (doc.go).
var predictors = map[string]predictor{
	"Deployment.apps":                          {},
	"StatefulSet.apps":                         {},
	"DaemonSet.apps":                           {},
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
	skew := SkewFor(opts.Cluster, gvk.GroupKind().String(), opts.Minors)
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
	var (
		pred object.Identity
		err  error
	)
	if p.predict == nil {
		pred, out.Matches, err = predictBuiltin(o, helperMinor(opts.Cluster, opts.Minors), opts)
	} else {
		pred, err = p.predict(o, crd, opts)
	}
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

// predictBuiltin predicts a Deployment, StatefulSet or DaemonSet with
// the controllers' code of the linked Kubernetes (kube.go), or, with
// minor set (helperMinor), with that minor's helper.
func predictBuiltin(o *unstructured.Unstructured, minor string, opts Options) (object.Identity, string, error) {
	js, err := o.MarshalJSON()
	if err != nil {
		return object.Identity{}, "", err
	}
	var id KubeIdentity
	if minor != "" {
		id, err = opts.Minors.Predict(minor, o.GetKind(), js, opts.CollisionCount)
	} else {
		id, err = kubePredict(o.GetKind(), js, opts.CollisionCount)
	}
	if err != nil {
		return object.Identity{}, "", err
	}
	return object.Identity{PodTemplateHash: id.PodTemplateHash, ReplicaSetName: id.ReplicaSetName,
		ControllerRevisionName: id.ControllerRevisionName, ControllerRevisionHash: id.ControllerRevisionHash}, id.Matches, nil
}
