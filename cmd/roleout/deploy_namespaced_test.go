package main

import (
	"context"
	"os"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// namespacedApp is threeWaves at apps/<dir> in namespace ns, its
// Namespace adopted (an administrator creates it before the agent runs).
func namespacedApp(dir, ns string) map[string]string {
	out := map[string]string{}
	for name, content := range threeWaves(ns, "v1") {
		out[strings.Replace(name, "apps/three/", "apps/"+dir+"/", 1)] = content
	}
	out["apps/"+dir+"/namespace.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n  annotations: {roleout.dev/adopt: \"true\"}\n"
	return out
}

// namespacedConfig writes an agent config for app (at apps/<app>) that
// acts as the agent's service account of examples/deploy-namespaced.
func namespacedConfig(t *testing.T, repo *testgit.Repo, app, kubeconfig string) string {
	t.Helper()
	// The app's Namespace exists (an administrator made it): the config
	// names it as the app's and honours the adopt annotation on it.
	config := writeConfig(t, repo.URL(), "- {name: "+app+", path: apps/"+app+", namespace: "+app+", prune: true, timeout: 30s, allowedAnnotations: [roleout.dev/adopt]}\n")
	data, _ := os.ReadFile(config)
	if err := os.WriteFile(config, []byte(strings.Replace(string(data), cluster.Kubeconfig, kubeconfig, 1)+
		"status:\n  clusterRevisions: {namespace: roleout-system}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return config
}

// TestAgentWithNamespacedRBAC runs the agent with exactly the permissions
// examples/deploy-namespaced gives its service account: it rolls out an
// app in the namespace the example grants (llm) and keeps its role
// revisions in its own namespace; an app in any other namespace is
// refused by the API server and creates nothing; and the account can
// write nothing outside its namespaces.
func TestAgentWithNamespacedRBAC(t *testing.T) {
	c := testcluster.Require(t, cluster)
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	// examples/deploy's cluster-wide grant, if a test applied it before,
	// would hide what the namespaced variant lacks.
	if err := cs.RbacV1().ClusterRoleBindings().Delete(ctx, "roleout-apply", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	applyManifests(t, c, "examples/deploy-namespaced")
	sa := asServiceAccount(t, c.Kubeconfig, "roleout-system", "roleout")
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "rbac-namespaced")
	files := namespacedApp("llm", "llm")
	for name, content := range namespacedApp("outside", "rbac-outside") {
		files[name] = content
	}
	if _, err := repo.Commit("main", "two apps", files); err != nil {
		t.Fatal(err)
	}
	code, _, logs := cli("run", "--once", "--config", namespacedConfig(t, repo, "llm", sa))
	if code != exitOK || strings.Contains(logs, "forbidden") {
		t.Fatalf("the agent with the namespaced RBAC: exit %d\n%s", code, logs)
	}
	for _, name := range []string{"a", "b", "c"} {
		if _, err := cs.AppsV1().Deployments("llm").Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("Deployment llm/%s: %v", name, err)
		}
	}
	crs, err := cs.AppsV1().ControllerRevisions("roleout-system").List(ctx, metav1.ListOptions{LabelSelector: "roleout.dev/app=llm"})
	if err != nil || len(crs.Items) == 0 {
		t.Errorf("role revisions in roleout-system: %v, %d", err, len(crs.Items))
	}

	code, _, logs = cli("run", "--once", "--config", namespacedConfig(t, repo, "outside", sa))
	if code != exitError || !strings.Contains(logs, "forbidden") {
		t.Errorf("an app outside the granted namespaces: exit %d, want 2 and forbidden\n%s", code, logs)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "rbac-outside", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace rbac-outside: %v, want it never created", err)
	}

	as := clientFor(t, sa)
	cm := func(ns string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns}}
	}
	refused := map[string]error{}
	_, refused["create a ConfigMap in default"] = as.CoreV1().ConfigMaps("default").Create(ctx, cm("default"), metav1.CreateOptions{})
	_, refused["create a ConfigMap in roleout-system"] = as.CoreV1().ConfigMaps("roleout-system").Create(ctx, cm("roleout-system"), metav1.CreateOptions{})
	// The status anchor, which the example makes, the agent may patch.
	if _, err := as.CoreV1().ConfigMaps("roleout-system").Patch(ctx, control.StatusAnchorName, types.MergePatchType, []byte(`{"data":{"probe":"x"}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("patch the status anchor as the agent: %v", err)
	}
	_, refused["list Secrets in kube-system"] = as.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{})
	_, refused["list Secrets cluster-wide"] = as.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
	_, refused["create a Namespace"] = as.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "rbac-new"}}, metav1.CreateOptions{})
	_, refused["patch Namespace default"] = as.CoreV1().Namespaces().Patch(ctx, "default", types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{})
	_, refused["delete a CRD"] = as.Discovery().RESTClient().Delete().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com").DoRaw(ctx)
	_, refused["create a DaemonSet in kube-system"] = as.AppsV1().DaemonSets("kube-system").Create(ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	_, refused["create a ClusterRoleBinding"] = as.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "escalate"}, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "roleout", Namespace: "roleout-system"}}}, metav1.CreateOptions{})
	for what, err := range refused {
		if !apierrors.IsForbidden(err) {
			t.Errorf("%s as the agent: %v, want forbidden", what, err)
		}
	}
}
