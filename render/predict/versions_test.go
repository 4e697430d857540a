package predict

import (
	"testing"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testobjects"
	"github.com/roleout/roleout/render/schema"
)

// TestModelledVersionsAreGoMod checks that the versions roleout says it
// models are the modules go.mod selects, which the binary links.
func TestModelledVersionsAreGoMod(t *testing.T) {
	for module, want := range map[string]string{
		"k8s.io/kubernetes":              schema.KubernetesVersion,
		"sigs.k8s.io/lws":                schema.LWSVersion,
		"github.com/vllm-project/aibrix": schema.AibrixVersion,
	} {
		if got := testobjects.GoModule(t, ".", module).Version; got != want {
			t.Errorf("go.mod selects %s %s, but versions.go says %s", module, got, want)
		}
	}
	for _, c := range Controllers() {
		if got := testobjects.GoModule(t, ".", c.Module).Version; got != c.Version {
			t.Errorf("controller %s: go.mod selects %s %s, Controllers says %s", c.Name, c.Module, got, c.Version)
		}
		for _, k := range c.Kinds {
			if p, ok := predictors[k]; !ok || !p.custom {
				t.Errorf("controller %s: %s is not a custom kind roleout predicts", c.Name, k)
			}
		}
	}
}

func TestSkewFor(t *testing.T) {
	lws := func(tag string) object.ClusterVersions {
		return object.ClusterVersions{Controllers: map[string]string{"lws": tag}}
	}
	for _, tc := range []struct {
		name string
		v    object.ClusterVersions
		gk   string
		want string
	}{
		{"unknown", object.ClusterVersions{}, "Deployment.apps", ""},
		{"same minor", object.ClusterVersions{Kubernetes: "v1.37.0"}, "StatefulSet.apps", ""},
		{"provider suffix", object.ClusterVersions{Kubernetes: "v1.37.5-gke.1200"}, "DaemonSet.apps", ""},
		{"older minor", object.ClusterVersions{Kubernetes: "v1.36.4"}, "Deployment.apps", "the cluster runs Kubernetes v1.36.4; roleout models v1.37"},
		{"kubernetes skew leaves lws alone", object.ClusterVersions{Kubernetes: "v1.36.4"}, "LeaderWorkerSet.leaderworkerset.x-k8s.io", ""},
		{"lws older", lws("v0.8.1"), "LeaderWorkerSet.leaderworkerset.x-k8s.io", "the cluster runs lws v0.8.1; roleout models v0.9.0"},
		{"lws without v", lws("0.8.1"), "LeaderWorkerSet.leaderworkerset.x-k8s.io", "the cluster runs lws v0.8.1; roleout models v0.9.0"},
		{"lws same", lws("v0.9.0"), "LeaderWorkerSet.leaderworkerset.x-k8s.io", ""},
		{"lws tag not a version", lws("release-0.9"), "LeaderWorkerSet.leaderworkerset.x-k8s.io", ""},
		{"lws skew leaves apps alone", lws("v0.8.1"), "Deployment.apps", ""},
		{"lws skew leaves aibrix alone", lws("v0.8.1"), "StormService.orchestration.aibrix.ai", ""},
		{"aibrix newer", object.ClusterVersions{Controllers: map[string]string{"aibrix": "v0.7.0"}}, "StormService.orchestration.aibrix.ai", "the cluster runs aibrix v0.7.0; roleout models v0.6.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SkewFor(tc.v, tc.gk, nil).String(); got != tc.want {
				t.Errorf("SkewFor(%s) = %q, want %q", tc.gk, got, tc.want)
			}
		})
	}
}

// TestPredictOutcomeSkew checks that a skew marks the prediction
// unverified without changing it, and only for the kinds it affects.
func TestPredictOutcomeSkew(t *testing.T) {
	const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`
	const lws = `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: tiny-lws, namespace: default}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers: [{name: app, image: registry.k8s.io/pause:3.10}]
`
	objs := append(testobjects.Parse(t, deployment), testobjects.Parse(t, lws)...)
	skewed := object.ClusterVersions{Kubernetes: "v1.37.2", Controllers: map[string]string{"lws": "v0.8.1"}}
	for _, o := range objs {
		plain, err := PredictOutcome(o, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := PredictOutcome(o, Options{Cluster: skewed})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Prediction.Equal(plain.Prediction) || got.Schema != plain.Schema {
			t.Errorf("%s: a skew changed the prediction: %+v, want %+v", o.GetKind(), got, plain)
		}
		want := ""
		if o.GetKind() == "LeaderWorkerSet" {
			want = "the cluster runs lws v0.8.1; roleout models v0.9.0"
		}
		if got.Unverified != want || got.Skew.String() != want {
			t.Errorf("%s: unverified %q, skew %q; want %q", o.GetKind(), got.Unverified, got.Skew, want)
		}
	}
	// With no CRD at all the reasons add up.
	got, err := PredictOutcome(objs[1], Options{Sources: schema.Sources{NoBuiltinCRDs: true}, Cluster: skewed})
	if err != nil {
		t.Fatal(err)
	}
	if want := "; the cluster runs lws v0.8.1; roleout models v0.9.0"; len(got.Unverified) <= len(want) || got.Unverified[len(got.Unverified)-len(want):] != want {
		t.Errorf("unverified = %q, want the schema reason and then the skew", got.Unverified)
	}
}
