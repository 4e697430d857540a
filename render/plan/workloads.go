package plan

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/predict"
	"github.com/roleout/roleout/render/revision"
)

// predictWorkloads predicts every workload of r, with the collision
// counts and the CRDs of schemas, and compares each with the same
// workload in the role's previous revision.
func predictWorkloads(r *model.Role, collisions map[object.Ref]*int32, schemas predict.Options) ([]model.Workload, error) {
	previous := map[string]*unstructured.Unstructured{}
	if r.Decision.Action != revision.Unchanged {
		for _, h := range r.History {
			if h.Number == r.Decision.Previous {
				for _, o := range h.UnstructuredObjects() {
					previous[object.RefOf(o).Key()] = o
				}
			}
		}
	}
	var out []model.Workload
	for _, o := range r.Objects {
		if !predict.IsWorkloadKind(o) {
			if w, ok := unpredicted(r, o, previous); ok {
				out = append(out, w)
			}
			continue
		}
		ref := object.RefOf(o)
		opts := schemas
		opts.CollisionCount = collisions[ref]
		res, err := predict.PredictOutcome(o, opts)
		if err != nil {
			return nil, err
		}
		w := model.Workload{Ref: ref, Predicted: res.Prediction, Schema: res.Schema, Unverified: res.Unverified, Skew: res.Skew, Matches: res.Matches}
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
func unpredicted(r *model.Role, o *unstructured.Unstructured, previous map[string]*unstructured.Unstructured) (model.Workload, bool) {
	found := false
	for _, p := range podTemplatePaths {
		if _, ok, _ := unstructured.NestedSlice(o.Object, p...); ok {
			found = true
		}
	}
	if !found {
		return model.Workload{}, false
	}
	ref := object.RefOf(o)
	w := model.Workload{Ref: ref, Unverified: "roleout has no prediction for kind " + o.GroupVersionKind().GroupKind().String() +
		": whether its pods restart follows whether the object changed"}
	if r.Decision.Action != revision.Unchanged {
		w.RestartsPods = true
		if old, ok := previous[ref.Key()]; ok {
			w.RestartsPods = restarts(old, o, predict.Outcome{}, predict.Options{})
		}
	}
	return w, true
}

// restarts reports whether workload o, predicted as res, restarts the
// pods of old, its version in the previous revision: its identity
// changes, or, with no prediction, its object does.
func restarts(old, o *unstructured.Unstructured, res predict.Outcome, opts predict.Options) bool {
	if res.Prediction.Equal(object.Identity{}) {
		// As JSON: a record read back from the status branch may hold a
		// number in another Go type than the render.
		a, err1 := json.Marshal(object.Normalize(old))
		b, err2 := json.Marshal(object.Normalize(o))
		return err1 != nil || err2 != nil || string(a) != string(b)
	}
	before, err := predict.Predict(old, opts)
	return err != nil || !before.Equal(res.Prediction)
}
