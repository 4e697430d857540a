package testcluster

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/kubernetes"
)

var cluster *Cluster

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(runOrphanHelper())
	}
	os.Exit(Main(m, DefaultOptions(), &cluster))
}

func clientset(t *testing.T) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func podTemplate(app string) *corev1ac.PodTemplateSpecApplyConfiguration {
	return corev1ac.PodTemplateSpec().
		WithLabels(map[string]string{"app": app}).
		WithSpec(corev1ac.PodSpec().WithContainers(
			corev1ac.Container().WithName("main").WithImage("registry.example/" + app + ":1.0")))
}

// waitFor polls cond every 200ms until it holds or a minute passes.
func waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := poll(ctx, what, func() error { return nil }, cond); err != nil {
		t.Fatal(err)
	}
}

func TestDeploymentBecomesAvailable(t *testing.T) {
	cs := clientset(t)
	ctx := context.Background()
	dep := appsv1ac.Deployment("web", "default").
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(3).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "web"})).
			WithTemplate(podTemplate("web")))
	if _, err := cs.AppsV1().Deployments("default").Apply(ctx, dep, metav1.ApplyOptions{FieldManager: "roleout", Force: true}); err != nil {
		t.Fatalf("server-side apply: %v", err)
	}
	waitFor(t, "Deployment web Available with 3 ready replicas", func() (bool, error) {
		d, err := cs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue && d.Status.ReadyReplicas == 3 {
				return true, nil
			}
		}
		return false, fmt.Errorf("status %+v", d.Status)
	})
	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 3 {
		t.Fatalf("pods = %d, want 3", len(pods.Items))
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" || !podReady(&p) {
			t.Errorf("pod %s: node %q, ready %v; want scheduled and Ready", p.Name, p.Spec.NodeName, podReady(&p))
		}
		if p.Labels[appsv1.DefaultDeploymentUniqueLabelKey] == "" {
			t.Errorf("pod %s has no pod-template-hash label", p.Name)
		}
	}
}

func TestStatefulSetGetsControllerRevision(t *testing.T) {
	cs := clientset(t)
	ctx := context.Background()
	sts := appsv1ac.StatefulSet("db", "default").
		WithSpec(appsv1ac.StatefulSetSpec().
			WithReplicas(2).
			WithServiceName("db").
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "db"})).
			WithTemplate(podTemplate("db")))
	if _, err := cs.AppsV1().StatefulSets("default").Apply(ctx, sts, metav1.ApplyOptions{FieldManager: "roleout", Force: true}); err != nil {
		t.Fatalf("server-side apply: %v", err)
	}
	var rev string
	waitFor(t, "StatefulSet db ready at its update revision", func() (bool, error) {
		s, err := cs.AppsV1().StatefulSets("default").Get(ctx, "db", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		rev = s.Status.UpdateRevision
		return rev != "" && s.Status.ReadyReplicas == 2 && s.Status.CurrentRevision == rev, fmt.Errorf("status %+v", s.Status)
	})
	crs, err := cs.AppsV1().ControllerRevisions("default").List(ctx, metav1.ListOptions{LabelSelector: "app=db"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, cr := range crs.Items {
		found = found || cr.Name == rev
	}
	if !found {
		t.Fatalf("no ControllerRevision named %s among %d", rev, len(crs.Items))
	}
	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=db"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 2 {
		t.Fatalf("pods = %d, want 2", len(pods.Items))
	}
	for _, p := range pods.Items {
		if got := p.Labels[appsv1.ControllerRevisionHashLabelKey]; got != rev {
			t.Errorf("pod %s controller-revision-hash = %q, want %q", p.Name, got, rev)
		}
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func TestWritesFromAuditLog(t *testing.T) {
	cs := clientset(t)
	ctx := context.Background()
	cm := corev1ac.ConfigMap("audited", "default").WithData(map[string]string{"a": "1"})
	for range 2 {
		if _, err := cs.CoreV1().ConfigMaps("default").Apply(ctx, cm, metav1.ApplyOptions{FieldManager: "roleout"}); err != nil {
			t.Fatal(err)
		}
	}
	writes, err := cluster.Writes("")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range writes {
		if w.Resource == "configmaps" && w.Name == "audited" && w.Verb == "patch" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("audited patches of configmap audited = %d, want 2", n)
	}
}
