package predict

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testobjects"
)

func predict(t *testing.T, o *unstructured.Unstructured, cc *int32) object.Identity {
	t.Helper()
	p, err := Predict(o, Options{CollisionCount: cc})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPredictKubernetesVector is Kubernetes' own StatefulSet
// compatibility vector (pkg/controller/statefulset/testdata/
// compatibility_*_1.34.0.json in k8s.io/kubernetes).
func TestPredictKubernetesVector(t *testing.T) {
	const set = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: test, namespace: default}
spec:
  selector: {matchLabels: {app: foo}}
  template:
    metadata:
      labels: {app: foo}
      annotations: {test: value}
    spec:
      containers: [{name: test, image: test}]
  volumeClaimTemplates:
  - metadata: {name: test}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`
	objs := testobjects.Parse(t, set)
	if got := predict(t, objs[0], nil).ControllerRevisionName; got != "test-776999688b" {
		t.Errorf("StatefulSet test revision = %s, want test-776999688b", got)
	}
	bare := testobjects.Parse(t, set)[0]
	unstructured.RemoveNestedField(bare.Object, "spec", "template", "metadata")
	if got := predict(t, bare, nil).ControllerRevisionName; got == "test-776999688b" {
		t.Error("without the template's labels and annotations the revision must differ")
	}
}

// TestPredictLiveVectors checks predictions against names a real
// kube-controller-manager v1.37.2 gave (see the testdata comments).
func TestPredictLiveVectors(t *testing.T) {
	objs := testobjects.ByName(testobjects.Read(t, "testdata/live-deployments.yaml"))
	for name, o := range testobjects.ByName(testobjects.Read(t, "testdata/live-statefulset-daemonset.yaml")) {
		objs[name] = o
	}
	cases := []struct {
		name string
		want object.Identity
	}{
		{"quant-a", object.Identity{PodTemplateHash: "56cbd59fb9", ReplicaSetName: "quant-a-56cbd59fb9"}},
		{"quant-b", object.Identity{PodTemplateHash: "549dd466ff", ReplicaSetName: "quant-b-549dd466ff"}},
		{"web", object.Identity{ControllerRevisionName: "web-c7684c98b"}},
		{"agent", object.Identity{ControllerRevisionHash: "5df86b9f88"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := predict(t, objs[tc.name], nil); !got.Equal(tc.want) {
				t.Errorf("prediction %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestPredictCollisionCount(t *testing.T) {
	objs := testobjects.ByName(testobjects.Read(t, "testdata/live-deployments.yaml"))
	zero, one := int32(0), int32(1)
	base := predict(t, objs["quant-b"], nil)
	if withZero := predict(t, objs["quant-b"], &zero); withZero.Equal(base) {
		t.Error("a Deployment's collisionCount 0 is hashed (8 bytes), unlike none")
	}
	if withOne := predict(t, objs["quant-b"], &one); withOne.Equal(predict(t, objs["quant-b"], &zero)) {
		t.Error("collisionCount 1 must change the hash")
	}
	sts := testobjects.ByName(testobjects.Read(t, "testdata/live-statefulset-daemonset.yaml"))["web"]
	if !predict(t, sts, nil).Equal(predict(t, sts, &zero)) {
		t.Error("a StatefulSet without collisionCount hashes as 0")
	}
}

func TestPredictUnknownKind(t *testing.T) {
	cm := testobjects.Parse(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")[0]
	if IsWorkload(cm) {
		t.Error("a ConfigMap is not a workload")
	}
	if _, err := Predict(cm, Options{}); err == nil {
		t.Error("Predict of a ConfigMap must fail")
	}
}

func BenchmarkPredict(b *testing.B) {
	objs := testobjects.ByName(testobjects.Read(b, "testdata/live-deployments.yaml"))
	for name, o := range testobjects.ByName(testobjects.Read(b, "testdata/live-statefulset-daemonset.yaml")) {
		objs[name] = o
	}
	for _, name := range []string{"quant-a", "web", "agent"} {
		b.Run(objs[name].GetKind(), func(b *testing.B) {
			for b.Loop() {
				if _, err := Predict(objs[name], Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPredictLeaderWorkerSet checks the vector observed from the lws
// v0.9.0 controller on the test control plane: the same hash with and
// without its webhooks, and with the webhook's defaults written out.
func TestPredictLeaderWorkerSet(t *testing.T) {
	const lws = `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: tiny-lws, namespace: default}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          resources: {requests: {cpu: 100m, memory: 1024Mi}}
`
	for name, doc := range map[string]string{
		"minimal": lws,
		"webhook defaults written out": strings.Replace(lws, "    size: 2\n", "    size: 2\n    restartPolicy: RecreateGroupOnPodRestart\n", 1) +
			"  networkConfig: {subdomainPolicy: Shared}\n",
	} {
		t.Run(name, func(t *testing.T) {
			if got := predict(t, testobjects.Parse(t, doc)[0], nil).TemplateRevisionHash; got != "55df76cf4f" {
				t.Errorf("template-revision-hash = %s, want 55df76cf4f", got)
			}
		})
	}
	bigger := testobjects.Parse(t, strings.Replace(lws, "size: 2", "size: 4", 1))[0]
	if got := predict(t, bigger, nil).TemplateRevisionHash; got == "55df76cf4f" {
		t.Error("a different size must change the hash")
	}
}
