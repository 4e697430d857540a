package apply

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/workloadgen"
	"github.com/roleout/roleout/render/kubeminor"
	"github.com/roleout/roleout/render/predict"
)

// TestRandomWorkloadsMatchControllers plans 120 random Deployments,
// StatefulSets and DaemonSets (internal/workloadgen) offline for the
// Kubernetes version the test cluster runs, applies them and holds every
// prediction equal to what its kube-controller-manager made, each one
// verified. make test runs it against the linked release; make
// test-versions against each other minor's control plane, where the
// prediction is that minor's helper's (bin/predictors).
func TestRandomWorkloadsMatchControllers(t *testing.T) {
	a := newApplier(t)
	root, err := testcluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	minors := kubeminor.New(filepath.Join(root, "bin", "predictors"))
	t.Cleanup(minors.Close)
	versions := a.ClusterVersions(context.Background(), nil)
	ns := "random"
	applyOrFail(t, a, obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: random}\n"))
	objs := workloadgen.Workloads(42, 120, ns)
	predicted, linked := map[string]object.Identity{}, map[string]object.Identity{}
	for _, o := range objs {
		out, err := predict.PredictOutcome(o, predict.Options{Cluster: versions, Minors: minors})
		if err != nil {
			t.Fatal(err)
		}
		if out.Unverified != "" {
			t.Fatalf("%s at Kubernetes %s: unverified: %s", o.GetName(), versions.Kubernetes, out.Unverified)
		}
		predicted[o.GetName()] = out.Prediction
		if linked[o.GetName()], err = predict.Predict(o, predict.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	applyOrFail(t, a, objs...)
	matched, linkedWrong := 0, 0
	for _, o := range objs {
		got := asPrediction(observe(t, a, o))
		if !got.Equal(linked[o.GetName()]) {
			linkedWrong++
		}
		if want := predicted[o.GetName()]; !got.Equal(want) {
			t.Errorf("%s: predicted %+v for Kubernetes %s, its controller made %+v", object.RefOf(o), want, versions.Kubernetes, got)
		} else {
			matched++
		}
	}
	t.Logf("Kubernetes %s: %d of %d random workloads predicted as its controllers made them (the code roleout links, %s, would have named %d wrongly)",
		versions.Kubernetes, matched, len(objs), predict.LinkedMinor(), linkedWrong)
}
