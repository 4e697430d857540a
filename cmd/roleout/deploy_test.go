package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/sharding"
)

// applyDeployManifests applies examples/deploy to the test cluster, step
// by step, each healthy before the next.
func applyDeployManifests(t *testing.T, c *testcluster.Cluster) {
	t.Helper()
	applyManifests(t, c, "examples/deploy")
}

// applyManifests applies the kustomization at dir (relative to the
// repository root) to the test cluster, as applyDeployManifests does.
func applyManifests(t *testing.T, c *testcluster.Cluster, dir string) {
	t.Helper()
	ctx := context.Background()
	res, err := (&render.Renderer{}).Build(ctx, render.Source{Root: "../.."}, dir, render.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	plan.DefaultNamespace(res.Objects, "roleout-system", plan.KindScopes(res.Objects, nil))
	plan, err := plan.New(res.Objects, plan.Options{App: "roleout"}, plan.Facts{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := apply.New(c.Config, apply.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	steps := [][]*unstructured.Unstructured{plan.Prerequisites}
	for _, r := range plan.Roles() {
		steps = append(steps, r.Objects)
	}
	for _, objs := range steps {
		if _, err := a.Apply(ctx, objs, apply.ApplyOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := a.WaitHealthy(ctx, objs, apply.WaitOptions{Timeout: 2 * time.Minute}); err != nil {
			t.Fatalf("%v (the restricted Pod Security level refused the agent's pods?)", err)
		}
	}
}

// TestDeployManifests applies examples/deploy to the test cluster: its
// namespace enforces the restricted Pod Security level, and the agent's
// pods are admitted and become ready (non-root, read-only root file
// system, no privilege escalation, all capabilities dropped).
func TestDeployManifests(t *testing.T) {
	c := testcluster.Require(t, cluster)
	ctx := context.Background()
	applyDeployManifests(t, c)
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := cs.CoreV1().Pods("roleout-system").List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=roleout"})
	if err != nil || len(pods.Items) != 3 {
		t.Fatalf("agent pods = %d (%v), want the 3 replicas", len(pods.Items), err)
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

// clientFor returns a client of the cluster as the kubeconfig at path
// reaches it.
func clientFor(t *testing.T, path string) kubernetes.Interface {
	t.Helper()
	restCfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// asServiceAccount returns the kubeconfig at path made to act as the
// service account ns/name, with only the groups every service account
// has: its requests get exactly that account's permissions.
func asServiceAccount(t *testing.T, path, ns, name string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	auth := cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo]
	auth.Impersonate = "system:serviceaccount:" + ns + ":" + name
	auth.ImpersonateGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	out := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAgentWithDeployRBAC runs the agent with exactly the permissions
// examples/deploy gives its service account: it rolls out
// examples/web-stack (a StatefulSet, Deployments, Services, an Ingress, a
// Secret and a generated ConfigMap) and records its role revisions, while
// what the RBAC does not grant is refused.
func TestAgentWithDeployRBAC(t *testing.T) {
	c := testcluster.Require(t, cluster)
	applyDeployManifests(t, c)
	sa := asServiceAccount(t, c.Kubeconfig, "roleout-system", "roleout")
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "rbac")
	if _, err := repo.CommitDir("main", "web-stack", "../../examples/web-stack", "apps/shop"); err != nil {
		t.Fatal(err)
	}
	kust, err := os.ReadFile("../../examples/web-stack/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ns, err := os.ReadFile("../../examples/web-stack/namespace.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Commit("main", "namespace rbac-shop", map[string]string{
		"apps/shop/kustomization.yaml": strings.Replace(string(kust), "namespace: shop", "namespace: rbac-shop", 1),
		"apps/shop/namespace.yaml":     strings.Replace(string(ns), "name: shop", "name: rbac-shop", 1),
	}); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: shop, path: apps/shop, prune: true}\n")
	data, _ := os.ReadFile(config)
	if err := os.WriteFile(config, []byte(strings.Replace(string(data), cluster.Kubeconfig, sa, 1)+
		"status:\n  clusterRevisions: {namespace: roleout-system}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, logs := cli("run", "--once", "--config", config)
	if code != exitOK || strings.Contains(logs, "forbidden") {
		t.Fatalf("the agent with the deploy RBAC: exit %d\n%s", code, logs)
	}
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.AppsV1().StatefulSets("rbac-shop").Get(ctx, "postgres", metav1.GetOptions{}); err != nil {
		t.Errorf("StatefulSet postgres: %v", err)
	}
	crs, err := cs.AppsV1().ControllerRevisions("roleout-system").List(ctx, metav1.ListOptions{LabelSelector: "roleout.dev/app=shop"})
	if err != nil || len(crs.Items) == 0 {
		t.Errorf("role revisions in roleout-system: %v, %d", err, len(crs.Items))
	}
	as := clientFor(t, sa)
	checkShardingRBAC(t, as)
	refused := map[string]error{}
	_, refused["create a ClusterRoleBinding"] = as.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "escalate"}, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "roleout", Namespace: "roleout-system"}}}, metav1.CreateOptions{})
	_, refused["list nodes"] = as.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	_, refused["create a pod"] = as.CoreV1().Pods("rbac-shop").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}}, metav1.CreateOptions{})
	_, refused["read a Lease in kube-system"] = as.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{})
	for what, err := range refused {
		if !apierrors.IsForbidden(err) {
			t.Errorf("%s as the agent: %v, want forbidden", what, err)
		}
	}
}

// checkShardingRBAC runs a sharding replica as the agent's service
// account: the deploy RBAC lets it keep its member Lease, claim an app's
// Lease and, leaving, hand it back and delete its member Lease.
func checkShardingRBAC(t *testing.T, as kubernetes.Interface) {
	t.Helper()
	leases := as.CoordinationV1().Leases("roleout-system")
	var logs syncBuffer
	log := logrus.New()
	log.SetOutput(&logs)
	r, err := sharding.NewReplica(sharding.Options{Leases: leases, Group: "rbac-test", Identity: "rbac-replica",
		LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 200 * time.Millisecond, Log: log}, []string{"shop"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	for deadline := time.Now().Add(20 * time.Second); len(r.View().Held) == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	held := r.View().Held
	cancel()
	<-done
	if len(held) != 1 {
		t.Fatalf("a sharding replica with the deploy RBAC holds %v, want [shop]:\n%s", held, logs.String())
	}
	if strings.Contains(logs.String(), "forbidden") {
		t.Errorf("a sharding replica with the deploy RBAC was refused:\n%s", logs.String())
	}
	if _, err := leases.Get(context.Background(), sharding.MemberLeaseName("rbac-test", "rbac-replica"), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the replica's member Lease after it left: %v, want deleted", err)
	}
}
