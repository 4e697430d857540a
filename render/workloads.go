package render

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/render/revision"
)

// Workload is a workload of a role with the identity its controller will
// compute for the rendered template.
type Workload struct {
	Ref       ObjectRef
	Predicted revision.Prediction
	// RestartsPods says the identity differs from the one of the role's
	// previous revision, or the workload is new: its pods are replaced
	// (or created).
	RestartsPods bool
}

// predictWorkloads predicts every workload of r and compares each with
// the same workload in the role's previous revision.
func predictWorkloads(r *Role, collisions map[ObjectRef]*int32, crds []*unstructured.Unstructured) ([]Workload, error) {
	previous := map[string]*unstructured.Unstructured{}
	if r.Decision.Action != revision.Unchanged {
		for _, h := range r.History {
			if h.Revision == r.Decision.Previous {
				for _, o := range h.UnstructuredObjects() {
					previous[RefOf(o).Key()] = o
				}
			}
		}
	}
	var out []Workload
	for _, o := range r.Objects {
		if !revision.IsWorkload(o) {
			continue
		}
		ref := RefOf(o)
		opts := revision.PredictOptions{CollisionCount: collisions[ref], CRDs: crds}
		pred, err := revision.Predict(o, opts)
		if err != nil {
			return nil, err
		}
		w := Workload{Ref: ref, Predicted: pred}
		if r.Decision.Action != revision.Unchanged {
			w.RestartsPods = true
			if old, ok := previous[ref.Key()]; ok {
				before, err := revision.Predict(old, opts)
				w.RestartsPods = err != nil || !before.Equal(pred)
			}
		}
		out = append(out, w)
	}
	return out, nil
}
