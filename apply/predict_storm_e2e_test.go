package apply

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/predict"
	"github.com/roleout/roleout/render/schema"
)

// stormServices are the StormServices render/predict's tests check
// against aibrix's own code; here they meet the running controller.
const stormServices = "../render/predict/testdata/stormservices.yaml"

// aibrix is the test cluster's aibrix controller, started once.
var aibrix struct {
	once sync.Once
	crds []*unstructured.Unstructured
	err  error
}

// startAibrix installs the aibrix CRDs and runs, once, the aibrix v0.6.0
// controller manager's StormService, RoleSet and PodSet controllers
// against the test cluster, without their webhooks (whose certificates
// name an in-cluster Service), leader election or fixed ports. It returns
// the CRDs.
func startAibrix(t *testing.T, a *Applier) []*unstructured.Unstructured {
	t.Helper()
	crds := loadCRDs(t, filepath.Join(cluster.BinDir(), "crds", "aibrix"))
	aibrix.once.Do(func() {
		ctx := context.Background()
		if _, aibrix.err = a.Apply(ctx, crds, ApplyOptions{Force: true}); aibrix.err != nil {
			return
		}
		if aibrix.err = a.WaitHealthy(ctx, crds, WaitOptions{Timeout: time.Minute}); aibrix.err != nil {
			return
		}
		args := []string{"--kubeconfig=" + cluster.Kubeconfig, "--controllers=stormservice-controller", "--disable-webhook",
			"--leader-elect=false", "--metrics-bind-address=0", "--health-probe-bind-address=0"}
		aibrix.err = cluster.RunController("aibrix-controller", args)
	})
	if aibrix.err != nil {
		t.Fatal(aibrix.err)
	}
	a.ResetMapper()
	applyOrFail(t, a, obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: predict-storm}\n"))
	return crds
}

// readObjects reads the objects of a multi-document YAML file.
func readObjects(t *testing.T, file string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			break
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no objects in %s", file)
	}
	return out
}

// createOrApply applies o, or creates it when it has fields of
// Kubernetes 1.37 the CRD's schema does not declare: server-side apply
// refuses those, a plain create (kubectl create) has them pruned.
func createOrApply(t *testing.T, a *Applier, o *unstructured.Unstructured) {
	t.Helper()
	if o.GetName() != "newer-fields" {
		applyOrFail(t, a, o)
		return
	}
	gvr := runtimeschema.GroupVersionResource{Group: "orchestration.aibrix.ai", Version: "v1alpha1", Resource: "stormservices"}
	if _, err := a.client.Resource(gvr).Namespace(o.GetNamespace()).Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// stormObserved is what the controller made, as a prediction.
func stormObserved(o object.Identity) object.Identity {
	return object.Identity{ControllerRevisionName: o.ControllerRevisionName, RoleTemplateHashes: o.RoleTemplateHashes}
}

// predictLive predicts o with the CRDs and the live collision count, as
// the agent does.
func predictLive(t *testing.T, a *Applier, o *unstructured.Unstructured, crds []*unstructured.Unstructured) object.Identity {
	t.Helper()
	cc := a.CollisionCounts(context.Background(), []*unstructured.Unstructured{o})[object.RefOf(o)]
	p, err := predict.Predict(o, predict.Options{Sources: schema.Sources{CRDs: crds}, CollisionCount: cc})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPredictionMatchesStormServiceController runs the real aibrix
// v0.6.0 controller against the test cluster and checks that, for every
// StormService of testdata, the predicted ControllerRevision name and
// role-template-hashes equal the StormService's update revision and the
// labels of the pods (and PodSets) the controller created.
func TestPredictionMatchesStormServiceController(t *testing.T) {
	a := newApplier(t)
	crds := startAibrix(t, a)
	crdMatters := 0
	objs := readObjects(t, stormServices)
	for _, o := range objs {
		t.Run(o.GetName(), func(t *testing.T) {
			want := predictLive(t, a, o, crds)
			createOrApply(t, a, o)
			if diff := cmp.Diff(want, stormObserved(observe(t, a, o))); diff != "" {
				t.Errorf("(-predicted +controller):\n%s", diff)
			}
			if builtin, err := predict.Predict(o, predict.Options{}); err != nil || !builtin.Equal(want) {
				t.Errorf("with the built-in CRD: %+v, %v; want %+v", builtin, err, want)
			}
			if !mustPredict(t, o).Equal(want) {
				crdMatters++
			}
		})
	}
	// Without the CRD, the defaults of its schema (a RoleSet's
	// updateStrategy, a port's protocol, a gRPC probe's service) are
	// missing and the prediction is wrong.
	t.Logf("%d StormServices predicted as the controller made them; without the CRD %d predictions are wrong", len(objs), crdMatters)
	if crdMatters == 0 {
		t.Errorf("the CRD changed no prediction")
	}
}

// TestStormServiceUpdateAndRollback updates a StormService's template
// (a new revision and new hashes), scales it (no new revision) and rolls
// the template back (the first revision is reused), checking each
// prediction against the controller.
func TestStormServiceUpdateAndRollback(t *testing.T) {
	a := newApplier(t)
	crds := startAibrix(t, a)
	base := obj(t, `apiVersion: orchestration.aibrix.ai/v1alpha1
kind: StormService
metadata: {name: rollback, namespace: predict-storm}
spec:
  replicas: 1
  selector: {matchLabels: {app: rollback}}
  template:
    metadata: {labels: {app: rollback}}
    spec:
      roles:
      - name: prefill
        replicas: 1
        template:
          spec:
            containers: [{name: engine, image: registry.example/vllm:0.9.1, resources: {requests: {memory: 1024Mi}}}]
      - name: decode
        replicas: 1
        template:
          spec:
            containers: [{name: engine, image: registry.example/vllm:0.9.1, ports: [{containerPort: 8000}]}]
`)
	updated := base.DeepCopy()
	setImage(t, updated, 0, "registry.example/vllm:0.9.2")
	scaled := updated.DeepCopy()
	if err := unstructured.SetNestedField(scaled.Object, int64(2), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		o    *unstructured.Unstructured
	}{{"create", base}, {"update prefill", updated}, {"scale", scaled}, {"roll back", base}}
	seen := map[string]object.Identity{}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			want := predictLive(t, a, s.o, crds)
			applyOrFail(t, a, s.o)
			if diff := cmp.Diff(want, stormObserved(observe(t, a, s.o))); diff != "" {
				t.Errorf("(-predicted +controller):\n%s", diff)
			}
			seen[s.name] = want
		})
	}
	if seen["update prefill"].ControllerRevisionName == seen["create"].ControllerRevisionName ||
		seen["update prefill"].RoleTemplateHashes["decode"] != seen["create"].RoleTemplateHashes["decode"] ||
		seen["update prefill"].RoleTemplateHashes["prefill"] == seen["create"].RoleTemplateHashes["prefill"] {
		t.Errorf("the update should change the revision and prefill's hash only: %+v", seen)
	}
	if !seen["scale"].Equal(seen["update prefill"]) || !seen["roll back"].Equal(seen["create"]) {
		t.Errorf("scaling should keep the revision and a rollback should reuse the first: %+v", seen)
	}
	revisions := stormRevisions(t, a, base)
	if diff := cmp.Diff(map[string]int64{seen["create"].ControllerRevisionName: 3, seen["update prefill"].ControllerRevisionName: 2}, revisions); diff != "" {
		t.Errorf("ControllerRevisions (-want +got):\n%s", diff)
	}
}

func setImage(t *testing.T, o *unstructured.Unstructured, role int, image string) {
	t.Helper()
	roles, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "roles")
	containers, _, _ := unstructured.NestedSlice(roles[role].(map[string]any), "template", "spec", "containers")
	containers[0].(map[string]any)["image"] = image
	if err := unstructured.SetNestedSlice(roles[role].(map[string]any), containers, "template", "spec", "containers"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedSlice(o.Object, roles, "spec", "template", "spec", "roles"); err != nil {
		t.Fatal(err)
	}
}

// stormRevisions returns the revision number of each ControllerRevision
// the StormService owns.
func stormRevisions(t *testing.T, a *Applier, o *unstructured.Unstructured) map[string]int64 {
	t.Helper()
	live, err := a.Live(context.Background(), object.RefOf(o))
	if err != nil || live == nil {
		t.Fatalf("read %s: %v", object.RefOf(o), err)
	}
	gvr := runtimeschema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "controllerrevisions"}
	l, err := a.client.Resource(gvr).Namespace(o.GetNamespace()).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for i := range l.Items {
		if ownedBy(&l.Items[i], live.GetUID()) {
			rev, _, _ := unstructured.NestedInt64(l.Items[i].Object, "revision")
			out[l.Items[i].GetName()] = rev
		}
	}
	return out
}
