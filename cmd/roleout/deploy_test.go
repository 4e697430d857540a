package main

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/render"
)

// TestDeployManifests applies examples/deploy to the test cluster: its
// namespace enforces the restricted Pod Security level, and the agent's
// pods are admitted and become ready (non-root, read-only root file
// system, no privilege escalation, all capabilities dropped).
func TestDeployManifests(t *testing.T) {
	c := testcluster.Require(t, cluster)
	ctx := context.Background()
	res, err := (&render.Renderer{}).Build(ctx, render.Source{Root: "../.."}, "examples/deploy", render.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := render.DefaultNamespace(res.Objects, "roleout-system"); err != nil {
		t.Fatal(err)
	}
	plan, err := render.NewPlan(res.Objects, render.PlanOptions{App: "roleout"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := apply.New(c.Config, apply.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	steps := [][][]*unstructured.Unstructured{{plan.Prerequisites}}
	for _, r := range plan.Roles() {
		steps = append(steps, [][]*unstructured.Unstructured{r.Objects})
	}
	for _, step := range steps {
		for _, objs := range step {
			if _, err := a.Apply(ctx, objs, apply.ApplyOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := a.WaitHealthy(ctx, objs, 2*time.Minute); err != nil {
				t.Fatalf("%v (the restricted Pod Security level refused the agent's pods?)", err)
			}
		}
	}
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := cs.CoreV1().Pods("roleout-system").List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=roleout"})
	if err != nil || len(pods.Items) != 2 {
		t.Fatalf("agent pods = %d (%v), want 2", len(pods.Items), err)
	}
	// The namespace really enforces the level: a privileged pod is refused.
	bad := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "privileged", Namespace: "roleout-system"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x",
			SecurityContext: &corev1.SecurityContext{Privileged: ptr(true)}}}},
	}
	if _, err := cs.CoreV1().Pods("roleout-system").Create(ctx, bad, metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), "violates PodSecurity") {
		t.Errorf("a privileged pod in roleout-system: %v, want a PodSecurity refusal", err)
	}
}

func ptr[T any](v T) *T { return &v }
