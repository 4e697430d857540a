package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/status"
)

// TestFleetKubeconfigSecret serves an app whose cluster is a kubeconfig in
// a Secret of the agent's cluster, next to one whose Secret is missing: the
// first rolls out, the second records a failure that names the Secret and
// applies nothing.
func TestFleetKubeconfigSecret(t *testing.T) {
	t.Parallel()
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
	if st := readStatus(t, repo, "far"); st.Phase != status.PhaseSucceeded {
		t.Errorf("app far: %s %s", st.Phase, st.Message)
	}
	st := readStatus(t, repo, "lost")
	if st.Phase != status.PhaseFailed || !strings.Contains(st.Message, `Secret fleet-secrets/nowhere key "value"`) {
		t.Errorf("app lost: phase %s, message %q; want Failed naming the Secret", st.Phase, st.Message)
	}
	if len(st.Roles) != 0 {
		t.Errorf("app lost records roles %v; nothing was applied", st.Roles)
	}

	t.Run("diff --config compares with the app's cluster", func(t *testing.T) {
		before := len(writes)
		code, out, logs := cli("diff", "--config", config, "--app", "far")
		if code != exitOK {
			t.Fatalf("diff exit %d, want 0 (no changes):\n%s\n%s", code, out, logs)
		}
		after, err := cluster.Writes("")
		if err != nil {
			t.Fatal(err)
		}
		dryRuns := 0
		for _, w := range after[before:] {
			if w.DryRun && w.Namespace == "fleetsecret" {
				dryRuns++
				if w.As != "fleet-far" {
					t.Errorf("diff dry-ran %s/%s as %q, want the app's cluster identity fleet-far", w.Resource, w.Name, w.As)
				}
			}
		}
		if dryRuns == 0 {
			t.Error("diff made no dry run in the app's namespace")
		}
	})

	t.Run("a rollback is carried out on the app's cluster", func(t *testing.T) {
		worker, _ := repo.Show("main", "apps/web/worker.yaml")
		if _, err := repo.Commit("main", "worker 2.0", map[string]string{"apps/web/worker.yaml": strings.Replace(worker, "worker:1.0", "worker:2.0", 1)}); err != nil {
			t.Fatal(err)
		}
		cli("run", "--once", "--config", config) // app lost fails again
		code, out, logs := cli("rollback", "--config", config, "--app", "far", "--role", "worker", "--to-revision", "1", "--wait=false")
		if code != exitOK || !strings.Contains(out, "Pending") {
			t.Fatalf("rollback --wait=false: exit %d, %q:\n%s", code, out, logs)
		}
		before, err := cluster.Writes("")
		if err != nil {
			t.Fatal(err)
		}
		cli("run", "--once", "--config", config)
		if st := readStatus(t, repo, "far"); st.Phase != status.PhaseRolledBack || st.Rollback == nil || st.Rollback.State != status.RollbackHeld {
			t.Fatalf("app far after the rollback: %s %s %+v", st.Phase, st.Message, st.Rollback)
		}
		d, err := cs.AppsV1().Deployments("fleetsecret").Get(ctx, "worker", metav1.GetOptions{})
		if err != nil || d.Spec.Template.Spec.Containers[0].Image != "registry.example/worker:1.0" {
			t.Fatalf("worker after the rollback: %v %v", d.Spec.Template.Spec.Containers, err)
		}
		after, err := cluster.Writes("")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range after[len(before):] {
			if w.Verb == "patch" && w.Namespace == "fleetsecret" && w.Resource == "deployments" && w.As != "fleet-far" {
				t.Errorf("the rollback patched deployments/%s as %q, want the app's cluster identity fleet-far", w.Name, w.As)
			}
		}
	})
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

// TestFleetUnsafeKubeconfigSecret: a Secret's kubeconfig that would run a
// program (exec) or skip TLS verification is refused before any client is
// built: the plugin never runs, nothing is applied, and the app's status
// names the Secret, the user or cluster and the field. With
// clusters.allowUnsafeKubeconfigs the insecure one is used.
func TestFleetUnsafeKubeconfigSecret(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	marker := filepath.Join(t.TempDir(), "exec-ran")
	execConfig := editKubeconfig(t, impersonating(t, cluster.Kubeconfig, "fleet-unsafe"), func(cfg *clientcmdapi.Config) {
		auth := cfg.AuthInfos[testcluster.AdminUser]
		auth.Token = ""
		auth.Exec = &clientcmdapi.ExecConfig{APIVersion: "client.authentication.k8s.io/v1", Command: "/bin/sh",
			Args: []string{"-c", "touch " + marker}, InteractiveMode: clientcmdapi.NeverExecInteractiveMode}
	})
	insecureConfig := editKubeconfig(t, impersonating(t, cluster.Kubeconfig, "fleet-unsafe"), func(cfg *clientcmdapi.Config) {
		c := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]
		c.InsecureSkipTLSVerify, c.CertificateAuthorityData = true, nil
	})
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fleet-unsafe-secrets"}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"exec-cluster": execConfig, "insecure-cluster": insecureConfig} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name}, Data: map[string][]byte{"value": data}}
		if _, err := cs.CoreV1().Secrets(ns.Name).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	repo, _ := webRepo(t, "fleetunsafe", "fleetunsafe")
	apps := "- {name: execs, path: apps/web, kubeconfigSecret: {namespace: fleet-unsafe-secrets, name: exec-cluster}}\n" +
		"- {name: insecure, path: apps/web, kubeconfigSecret: {namespace: fleet-unsafe-secrets, name: insecure-cluster}}\n"
	code, _, logs := cli("run", "--once", "--config", writeConfig(t, repo.URL(), apps))
	if code != exitError {
		t.Errorf("exit %d, want 2:\n%s", code, logs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the Secret's exec plugin ran")
	}
	wants := map[string][]string{
		"execs": {`kubeconfigSecret (Secret fleet-unsafe-secrets/exec-cluster key "value")`,
			`user "roleout-admin" (context "roleout-local") uses exec plugin "/bin/sh": kubeconfigs from Secrets may not run programs; set clusters.allowUnsafeKubeconfigs to allow it`},
		"insecure": {`kubeconfigSecret (Secret fleet-unsafe-secrets/insecure-cluster key "value")`,
			`cluster "roleout-local" (context "roleout-local") sets insecure-skip-tls-verify`, "clusters.allowUnsafeKubeconfigs"},
	}
	for app, want := range wants {
		st := readStatus(t, repo, app)
		if st.Phase != status.PhaseFailed || len(st.Roles) != 0 {
			t.Errorf("app %s: phase %s, roles %v; want Failed with nothing applied", app, st.Phase, st.Roles)
		}
		for _, w := range want {
			if !strings.Contains(st.Message, w) {
				t.Errorf("app %s: status message\n%s\ndoes not contain\n%s", app, st.Message, w)
			}
		}
	}
	writes, err := cluster.Writes("")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		if w.Namespace == "fleetunsafe" || w.Name == "fleetunsafe" || w.As == "fleet-unsafe" {
			t.Errorf("written although refused: %s %s %s/%s as %q", w.Verb, w.Resource, w.Namespace, w.Name, w.As)
		}
	}

	allowed := writeConfig(t, repo.URL(), "- {name: insecure, path: apps/web, kubeconfigSecret: {namespace: fleet-unsafe-secrets, name: insecure-cluster}}\n")
	data, err := os.ReadFile(allowed)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(allowed, []byte(strings.Replace(string(data), "\napps:\n", "\nclusters: {allowUnsafeKubeconfigs: true}\napps:\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, logs := cli("run", "--once", "--config", allowed); code != exitOK {
		t.Errorf("with clusters.allowUnsafeKubeconfigs: exit %d, want 0:\n%s", code, logs)
	}
	if _, err := cs.AppsV1().Deployments("fleetunsafe").Get(ctx, "worker", metav1.GetOptions{}); err != nil {
		t.Errorf("with clusters.allowUnsafeKubeconfigs the insecure kubeconfig was not used: %v", err)
	}
}

// editKubeconfig returns the kubeconfig data changed by edit.
func editKubeconfig(t *testing.T, data []byte, edit func(*clientcmdapi.Config)) []byte {
	t.Helper()
	cfg, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	edit(cfg)
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
