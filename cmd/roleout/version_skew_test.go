package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// skewLWSApp is an app of one LeaderWorkerSet, with the rollout strategy
// written out (the lws controller runs without its webhook) and no
// groups: without its pod webhook lws never counts a group ready.
var skewLWSApp = map[string]string{
	"apps/skew/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: skew\nresources: [namespace.yaml, lws.yaml]\n",
	"apps/skew/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata: {name: skew}\n",
	"apps/skew/lws.yaml": `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: decode
  annotations: {roleout.dev/role: decode}
spec:
  replicas: 0
  rolloutStrategy:
    type: RollingUpdate
    rollingUpdateConfiguration: {maxUnavailable: 1, maxSurge: 0, partition: 0}
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec: {containers: [{name: app, image: registry.example/model:1.0}]}
`,
}

// TestRunMarksLWSVersionSkew runs an app with a LeaderWorkerSet on a
// cluster whose lws Deployment says v0.8.1 (the real v0.9.0 controller
// does the work): the prediction is unverified with the skew as reason,
// the rollout logs the skew in one line, and the Kubernetes version
// (v1.37.2, the one modelled) is no skew.
func TestRunMarksLWSVersionSkew(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	startLWSController(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lws-system"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"control-plane": "controller-manager"}
	one := int32(1)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "lws-controller-manager", Namespace: "lws-system"},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "registry.k8s.io/lws/lws:v0.8.1"}}}}},
	}
	if _, err := cs.AppsV1().Deployments("lws-system").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "skew")
	if _, err := repo.Commit("main", "lws app", skewLWSApp); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: skew, path: apps/skew, timeout: 2m}\n")
	code, _, logs := cli("run", "--once", "--config", config)
	if code != exitOK {
		t.Fatalf("run --once exit %d:\n%s", code, logs)
	}
	const reason = "the cluster runs lws v0.8.1; roleout models v0.9.0"
	if n := strings.Count(logs, "version skew: the cluster runs lws v0.8.1, roleout models v0.9.0: 1 LeaderWorkerSet prediction unverified"); n != 1 {
		t.Errorf("%d skew lines, want 1:\n%s", n, logs)
	}
	if strings.Contains(logs, "Kubernetes v1.37") {
		t.Errorf("the test cluster runs the Kubernetes version modelled, yet:\n%s", logs)
	}
	st := readStatus(t, repo, "skew")
	var found bool
	for _, r := range st.Roles {
		for _, w := range r.Workloads {
			if w.Kind == "LeaderWorkerSet" {
				found = true
				if w.Unverified != reason || w.Predicted.TemplateRevisionHash == "" {
					t.Errorf("LeaderWorkerSet workload = %+v, want a prediction unverified: %s", w, reason)
				}
			}
		}
	}
	if !found {
		t.Fatalf("no LeaderWorkerSet in the status: %+v", st.Roles)
	}
}

// startLWSController installs the lws CRDs (the controller watches
// every kind they define) and starts the real lws
// controller (no webhooks) in the test cluster.
func startLWSController(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	a, err := apply.New(cluster.Config, apply.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(cluster.BinDir(), "crds", "lws", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no lws CRDs (run make cluster-bins): %v", err)
	}
	var crds []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &unstructured.Unstructured{}
		if err := utilyaml.Unmarshal(data, &crd.Object); err != nil {
			t.Fatal(err)
		}
		crds = append(crds, crd)
	}
	if _, err := a.Apply(ctx, crds, apply.ApplyOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if err := a.WaitHealthy(ctx, crds, apply.WaitOptions{Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "lws.yaml")
	const lwsConfig = `apiVersion: config.lws.x-k8s.io/v1alpha1
kind: Configuration
leaderElection: {leaderElect: false}
internalCertManagement: {enable: false}
metrics: {bindAddress: "0"}
health: {healthProbeBindAddress: "127.0.0.1:0"}
`
	if err := os.WriteFile(config, []byte(lwsConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cluster.RunController("lws-controller", []string{"--config=" + config, "--kubeconfig=" + cluster.Kubeconfig}, "ENABLE_WEBHOOKS=false"); err != nil {
		t.Fatal(err)
	}
}
