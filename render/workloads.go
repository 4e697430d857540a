package render

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/render/revision"
)

// Workload is a workload of a role with the identity its controller will
// compute for the rendered template.
type Workload struct {
	Ref       ObjectRef
	Predicted revision.Prediction
	// Schema says where the schema of the prediction came from
	// (revision.SchemaRender, SchemaCluster or SchemaBuiltin; "" for
	// none).
	Schema revision.Schema
	// Unverified, when set, says why Predicted may not be the identity
	// the controller computes (Predicted is zero when roleout cannot
	// predict the workload at all).
	Unverified string
	// Skew, when not zero, is the version skew between the cluster and
	// roleout that makes the prediction unverified (PlanOptions.Versions).
	Skew revision.Skew
	// RestartsPods says the identity differs from the one of the role's
	// previous revision, or the workload is new: its pods are replaced
	// (or created). For a workload without a prediction it says the
	// workload's object changed, which may or may not touch its template.
	RestartsPods bool
}

// predictWorkloads predicts every workload of r, with the collision
// counts and the CRDs of schemas, and compares each with the same
// workload in the role's previous revision.
func predictWorkloads(r *Role, collisions map[ObjectRef]*int32, schemas revision.PredictOptions) ([]Workload, error) {
	previous := map[string]*unstructured.Unstructured{}
	if r.Decision.Action != revision.Unchanged {
		for _, h := range r.History {
			if h.Number == r.Decision.Previous {
				for _, o := range h.UnstructuredObjects() {
					previous[RefOf(o).Key()] = o
				}
			}
		}
	}
	var out []Workload
	for _, o := range r.Objects {
		if !revision.IsWorkloadKind(o) {
			if w, ok := unpredicted(r, o, previous); ok {
				out = append(out, w)
			}
			continue
		}
		ref := RefOf(o)
		opts := schemas
		opts.CollisionCount = collisions[ref]
		res, err := revision.PredictOutcome(o, opts)
		if err != nil {
			return nil, err
		}
		w := Workload{Ref: ref, Predicted: res.Prediction, Schema: res.Schema, Unverified: res.Unverified, Skew: res.Skew}
		if r.Decision.Action != revision.Unchanged {
			w.RestartsPods = true
			if old, ok := previous[ref.Key()]; ok {
				w.RestartsPods = restarts(old, o, res, opts)
			}
		}
		out = append(out, w)
	}
	return out, nil
}

// podTemplatePaths are where the kinds roleout does not predict keep the
// pod template that makes them workloads: a Job, a ReplicaSet, a
// ReplicationController or a custom kind shaped like a Deployment, and a
// CronJob's job template.
var podTemplatePaths = [][]string{
	{"spec", "template", "spec", "containers"},
	{"spec", "jobTemplate", "spec", "template", "spec", "containers"},
}

// unpredicted returns o as a workload without a prediction when it holds
// a pod template roleout does not model (podTemplatePaths): it is listed,
// unverified, so a plan never hides a change to pods. Whether its pods
// restart follows whether the object changed.
func unpredicted(r *Role, o *unstructured.Unstructured, previous map[string]*unstructured.Unstructured) (Workload, bool) {
	found := false
	for _, p := range podTemplatePaths {
		if _, ok, _ := unstructured.NestedSlice(o.Object, p...); ok {
			found = true
		}
	}
	if !found {
		return Workload{}, false
	}
	ref := RefOf(o)
	w := Workload{Ref: ref, Unverified: "roleout has no prediction for kind " + o.GroupVersionKind().GroupKind().String() +
		": whether its pods restart follows whether the object changed"}
	if r.Decision.Action != revision.Unchanged {
		w.RestartsPods = true
		if old, ok := previous[ref.Key()]; ok {
			w.RestartsPods = restarts(old, o, revision.Outcome{}, revision.PredictOptions{})
		}
	}
	return w, true
}

// restarts reports whether workload o, predicted as res, restarts the
// pods of old, its version in the previous revision: its identity
// changes, or, with no prediction, its object does.
func restarts(old, o *unstructured.Unstructured, res revision.Outcome, opts revision.PredictOptions) bool {
	if res.Prediction.Equal(revision.Prediction{}) {
		// As JSON: a record read back from the status branch may hold a
		// number in another Go type than the render.
		a, err1 := json.Marshal(revision.Normalize(old))
		b, err2 := json.Marshal(revision.Normalize(o))
		return err1 != nil || err2 != nil || string(a) != string(b)
	}
	before, err := revision.Predict(old, opts)
	return err != nil || !before.Equal(res.Prediction)
}
