package main

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/internal/testcluster"
)

// TestFleetKubeconfigSecret serves an app whose cluster is a kubeconfig in
// a Secret of the agent's cluster, next to one whose Secret is missing: the
// first rolls out, the second records a failure that names the Secret and
// applies nothing.
func TestFleetKubeconfigSecret(t *testing.T) {
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	kubeconfig := impersonating(t, cluster.Kubeconfig, "fleet-far")
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fleet-secrets"}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "far-cluster", Namespace: ns.Name},
		Data:       map[string][]byte{"value": kubeconfig},
	}
	if _, err := cs.CoreV1().Secrets(ns.Name).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	repo, _ := webRepo(t, "fleetsecret", "fleetsecret")
	config := writeConfig(t, repo.URL(),
		"- {name: far, path: apps/web, kubeconfigSecret: {namespace: fleet-secrets, name: far-cluster}}\n"+
			"- {name: lost, path: apps/web, kubeconfigSecret: {namespace: fleet-secrets, name: nowhere}}\n")
	code, _, logs := cli("run", "--once", "--config", config)
	if code != exitError || !strings.Contains(logs, "fleet-secrets/nowhere") {
		t.Errorf("exit %d, want 2 naming the missing Secret:\n%s", code, logs)
	}
	if _, err := cs.AppsV1().Deployments("fleetsecret").Get(ctx, "worker", metav1.GetOptions{}); err != nil {
		t.Errorf("app far did not roll out: %v", err)
	}
	writes, err := cluster.Writes("")
	if err != nil {
		t.Fatal(err)
	}
	applied := false
	for _, w := range writes {
		// roleout applies with patch; the controllers update status.
		if w.Verb == "patch" && w.Namespace == "fleetsecret" && w.Resource == "deployments" && w.Name == "worker" {
			applied = true
			if w.As != "fleet-far" {
				t.Errorf("%s deployments/worker as %q, want the Secret's identity fleet-far", w.Verb, w.As)
			}
		}
	}
	if !applied {
		t.Error("the audit log shows no write of deployments/worker")
	}
	if st := readStatus(t, repo, "far"); st.Phase != agent.PhaseSucceeded {
		t.Errorf("app far: %s %s", st.Phase, st.Message)
	}
	st := readStatus(t, repo, "lost")
	if st.Phase != agent.PhaseFailed || !strings.Contains(st.Message, `Secret fleet-secrets/nowhere key "value"`) {
		t.Errorf("app lost: phase %s, message %q; want Failed naming the Secret", st.Phase, st.Message)
	}
	if len(st.Roles) != 0 {
		t.Errorf("app lost records roles %v; nothing was applied", st.Roles)
	}
}

// impersonating returns the kubeconfig file at path with its user made to
// act as user (in system:masters), so that the audit log tells which
// kubeconfig a request came through.
func impersonating(t *testing.T, path, user string) []byte {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, ok := cfg.Contexts[cfg.CurrentContext]
	if !ok {
		t.Fatalf("%s has no current context", path)
	}
	auth := cfg.AuthInfos[ctx.AuthInfo]
	auth.Impersonate, auth.ImpersonateGroups = user, []string{"system:masters"}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
