package apply

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/roleout/roleout/render/predict"
	"github.com/roleout/roleout/render/schema"
)

// lwsConfig runs the lws controller with no webhook server, no
// certificate management, no leader election and no fixed ports.
const lwsConfig = `apiVersion: config.lws.x-k8s.io/v1alpha1
kind: Configuration
leaderElection: {leaderElect: false}
internalCertManagement: {enable: false}
metrics: {bindAddress: "0"}
health: {healthProbeBindAddress: "127.0.0.1:0"}
`

// lwsTemplates are LeaderWorkerSet specs the test varies. They spell out
// the rollout strategy: without its webhook lws v0.9.0 needs it written.
var lwsTemplates = map[string]string{
	"minimal": `
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec: {containers: [{name: app, image: registry.example/model:1.0}]}`,
	"leader-and-ports": `
  leaderWorkerTemplate:
    size: 4
    leaderTemplate:
      metadata: {labels: {role: leader}}
      spec: {containers: [{name: leader, image: registry.example/model:1.0, ports: [{containerPort: 8080}]}]}
    workerTemplate:
      spec: {containers: [{name: worker, image: registry.example/model:1.0, ports: [{containerPort: 8080, name: http}]}]}`,
	"quantities": `
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers:
        - name: app
          image: registry.example/model:1.0
          resources: {requests: {cpu: "0.5", memory: 1024Mi, nvidia.com/gpu: 1}, limits: {memory: 2048Mi, nvidia.com/gpu: "1"}}`,
	"restart-none-and-unique-subdomain": `
  networkConfig: {subdomainPolicy: UniquePerReplica}
  leaderWorkerTemplate:
    size: 3
    restartPolicy: None
    workerTemplate:
      metadata: {annotations: {}}
      spec:
        containers:
        - name: app
          image: registry.example/model:1.0
          env: [{name: MODEL, value: "llama"}, {name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]`,
	// size left to the CRD's schema default (1): only a prediction that
	// applies the CRD gets it right.
	"size-from-crd-default": `
  leaderWorkerTemplate:
    workerTemplate:
      spec: {containers: [{name: app, image: registry.example/model:1.0}]}`,
	"probes-and-volumes": `
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        volumes: [{name: shm, emptyDir: {medium: Memory, sizeLimit: 1Gi}}]
        containers:
        - name: app
          image: registry.example/model:1.0
          volumeMounts: [{name: shm, mountPath: /dev/shm}]
          readinessProbe: {httpGet: {path: /health, port: 8080}}`,
	// Quantities written the way the server does not store them: the
	// hash is over what the controller reads back (1000m is 1, 1.5Gi is
	// 1536Mi, 1e9 is 1G).
	"unusual-quantities": `
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers:
        - name: app
          image: registry.example/model:1.0
          resources:
            requests: {cpu: 1000m, memory: 1.5Gi, ephemeral-storage: 1e9}
            limits: {cpu: "2.0", memory: 1536Mi, ephemeral-storage: 0.001T}`,
	// Pod groups inside a group: subgroups of 2 of 4 pods.
	"subgroups": `
  leaderWorkerTemplate:
    size: 4
    subGroupPolicy: {subGroupSize: 2}
    workerTemplate:
      spec: {containers: [{name: app, image: registry.example/model:1.0}]}`,
	// Claims per pod, as a StatefulSet's.
	"volume-claim-templates": `
  leaderWorkerTemplate:
    size: 2
    volumeClaimTemplates:
    - metadata: {name: cache}
      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
    workerTemplate:
      spec:
        containers:
        - name: app
          image: registry.example/model:1.0
          volumeMounts: [{name: cache, mountPath: /cache}]`,
	// Leader first: the workers start once the leader is ready.
	"startup-leader-ready": `
  startupPolicy: LeaderReady
  leaderWorkerTemplate:
    size: 3
    leaderTemplate:
      spec: {containers: [{name: leader, image: registry.example/model:1.0}]}
    workerTemplate:
      spec: {containers: [{name: worker, image: registry.example/model:1.0}]}`,
	// One group per topology domain (lwsAnnotations).
	"exclusive-placement": `
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec: {containers: [{name: app, image: registry.example/model:1.0}]}`,
}

// lwsCRDMatters are the templates a prediction without the CRD gets
// wrong: a size, a container port's protocol or a subgroup policy type
// comes from the CRD's defaults.
var lwsCRDMatters = map[string]bool{"size-from-crd-default": true, "leader-and-ports": true, "subgroups": true}

// lwsAnnotations are the LeaderWorkerSet annotations of some templates.
var lwsAnnotations = map[string]string{
	"exclusive-placement": "leaderworkerset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname",
}

func lwsObject(t *testing.T, name, spec string) *unstructured.Unstructured {
	t.Helper()
	return obj(t, `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: `+name+`, namespace: predict-lws, annotations: {`+lwsAnnotations[name]+`}}
spec:
  replicas: 1
  rolloutStrategy:
    type: RollingUpdate
    rollingUpdateConfiguration: {maxUnavailable: 1, maxSurge: 0, partition: 0}`+spec+"\n")
}

// lwsStarted is set once the lws CRDs are installed and its controller
// runs in the test cluster.
var lwsStarted struct {
	sync.Mutex
	crds []*unstructured.Unstructured
}

// startLWS installs the lws CRDs and starts the real lws controller in the
// test cluster, once for the package's tests, and returns the CRDs.
func startLWS(t *testing.T, a *Applier) []*unstructured.Unstructured {
	t.Helper()
	lwsStarted.Lock()
	defer lwsStarted.Unlock()
	if lwsStarted.crds != nil {
		a.ResetMapper()
		return lwsStarted.crds
	}
	ctx := context.Background()
	crds := loadCRDs(t, filepath.Join(cluster.BinDir(), "crds", "lws"))
	if _, err := a.Apply(ctx, crds, ApplyOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if err := a.WaitHealthy(ctx, crds, WaitOptions{Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	a.ResetMapper()
	config := filepath.Join(t.TempDir(), "lws.yaml")
	if err := os.WriteFile(config, []byte(lwsConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cluster.RunController("lws-controller", []string{"--config=" + config, "--kubeconfig=" + cluster.Kubeconfig}, "ENABLE_WEBHOOKS=false"); err != nil {
		t.Fatal(err)
	}
	lwsStarted.crds = crds
	return crds
}

// loadCRDs reads the CRD files of dir.
func loadCRDs(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s (run make cluster-bins): %v", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := utilyaml.Unmarshal(data, &u.Object); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// TestPredictionMatchesLeaderWorkerSetController runs the real lws v0.9.0
// controller against the test cluster and checks that every predicted
// template-revision-hash equals the one the controller computed, with the
// CRD's schema defaults applied from the CRD installed and from the one
// built in, and, where those defaults matter, differs without any CRD.
func TestPredictionMatchesLeaderWorkerSetController(t *testing.T) {
	a := newApplier(t)
	crds := startLWS(t, a)
	applyOrFail(t, a, obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: predict-lws}\n"))
	for name, spec := range lwsTemplates {
		t.Run(name, func(t *testing.T) {
			o := lwsObject(t, name, spec)
			withCRD, err := predict.Predict(o, predict.Options{Sources: schema.Sources{CRDs: crds}})
			if err != nil {
				t.Fatal(err)
			}
			applyOrFail(t, a, o)
			got := observe(t, a, o).TemplateRevisionHash
			if got != withCRD.TemplateRevisionHash {
				t.Errorf("predicted %s with the CRD, the controller made %s", withCRD.TemplateRevisionHash, got)
			}
			builtin, err := predict.Predict(o, predict.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if builtin.TemplateRevisionHash != got {
				t.Errorf("predicted %s with the built-in CRD, the controller made %s", builtin.TemplateRevisionHash, got)
			}
			without := mustPredict(t, o).TemplateRevisionHash
			if crdMatters := lwsCRDMatters[name]; (without == got) == crdMatters {
				t.Errorf("without the CRD the prediction is %s, the controller made %s; the CRD's defaults matter here: %v", without, got, crdMatters)
			}
		})
	}
}
