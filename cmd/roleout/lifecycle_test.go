package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// shopFile reads a file of the shop fixture.
func shopFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/shop", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestLifecycle drives the shop app (a CRD, three waves, a Secret and a
// custom resource) through install, diff, prune, rollback, a broken render
// and a wave that never gets healthy, against the test cluster.
func TestLifecycle(t *testing.T) {
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "shop")
	if _, err := repo.CommitDir("main", "shop", "testdata/shop", "apps/shop"); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: shop, path: apps/shop, prune: true, timeout: 8s}\n")
	commit := func(t *testing.T, msg string, files map[string]string) {
		t.Helper()
		if _, err := repo.Commit("main", msg, files); err != nil {
			t.Fatal(err)
		}
	}
	var allOutput strings.Builder
	runOnce := func(t *testing.T, wantCode int) string {
		t.Helper()
		code, summary, logs := cli("run", "--once", "--config", config)
		allOutput.WriteString(summary + logs)
		if code != wantCode {
			t.Fatalf("run --once exit %d, want %d:\n%s", code, wantCode, logs)
		}
		return logs
	}
	diff := func(t *testing.T, wantCode int, extra ...string) string {
		t.Helper()
		code, out, errOut := cli(append([]string{"diff", "--config", config, "--app", "shop"}, extra...)...)
		allOutput.WriteString(out + errOut)
		if code != wantCode {
			t.Fatalf("diff %v exit %d, want %d:\n%s\n%s", extra, code, wantCode, out, errOut)
		}
		return out
	}

	t.Run("diff before install", func(t *testing.T) {
		out := diff(t, exitChanges)
		for _, want := range []string{"create Namespace/shop", "create (CRD pending) Widget/shop/api-widget", "create (namespace pending) Secret/shop/db-creds (role db)", "total"} {
			if !strings.Contains(out, want) {
				t.Errorf("diff lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "Tr0ub4dor") {
			t.Errorf("diff shows the Secret's value:\n%s", out)
		}
	})

	t.Run("install across three waves with a CRD and its CR", func(t *testing.T) {
		runOnce(t, exitOK)
		widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
		dyn, err := dynamic.NewForConfig(cluster.Config)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dyn.Resource(widgets).Namespace("shop").Get(ctx, "api-widget", metav1.GetOptions{}); err != nil {
			t.Errorf("the custom resource was not applied: %v", err)
		}
		if out := diff(t, exitOK); !strings.Contains(out, "no changes") {
			t.Errorf("diff right after the rollout:\n%s", out)
		}
		if out := diff(t, exitOK, "--offline"); !strings.Contains(out, "no changes") {
			t.Errorf("offline diff right after the rollout:\n%s", out)
		}
	})

	t.Run("a changed Secret and a removed object", func(t *testing.T) {
		foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "foreign", Namespace: "shop"}}
		if _, err := cs.CoreV1().ConfigMaps("shop").Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		front := shopFile(t, "front.yaml")
		commit(t, "new password, no front-config", map[string]string{
			"apps/shop/db.yaml":    strings.Replace(shopFile(t, "db.yaml"), "Tr0ub4dor-first", "Tr0ub4dor-second", 1),
			"apps/shop/front.yaml": front[:strings.Index(front, "---")],
		})
		for _, offline := range [][]string{nil, {"--offline"}} {
			out := diff(t, exitChanges, offline...)
			for _, want := range []string{"update Secret/shop/db-creds", "password: masked:sha256:"} {
				if !strings.Contains(out, want) {
					t.Errorf("diff %v lacks %q:\n%s", offline, want, out)
				}
			}
			if strings.Contains(out, "Tr0ub4dor") {
				t.Errorf("diff %v shows the Secret's value:\n%s", offline, out)
			}
		}
		if out := diff(t, exitChanges); !strings.Contains(out, "delete ConfigMap/shop/front-config") {
			t.Errorf("diff does not announce the prune:\n%s", out)
		} else {
			t.Logf("diff before the second rollout:\n%s", out)
		}
		runOnce(t, exitOK)
		if _, err := cs.CoreV1().ConfigMaps("shop").Get(ctx, "front-config", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("front-config left git but is still there: %v", err)
		}
		if _, err := cs.CoreV1().ConfigMaps("shop").Get(ctx, "foreign", metav1.GetOptions{}); err != nil {
			t.Errorf("an object roleout did not apply was deleted: %v", err)
		}
	})

	t.Run("rollback reuses the old ReplicaSet", func(t *testing.T) {
		first := apiReplicaSet(t, cs)
		commit(t, "api 2.0", map[string]string{"apps/shop/api.yaml": strings.Replace(shopFile(t, "api.yaml"), "api:1.0", "api:2.0", 1)})
		runOnce(t, exitOK)
		if second := apiReplicaSet(t, cs); second == first {
			t.Fatalf("api 2.0 kept ReplicaSet %s", first)
		}
		code, _, logs := cli("rollback", "--config", config, "--app", "shop", "--role", "api", "--to-revision", "1")
		if code != exitOK {
			t.Fatalf("rollback exit %d:\n%s", code, logs)
		}
		if back := apiReplicaSet(t, cs); back != first {
			t.Errorf("after rollback the current ReplicaSet is %s, want the first one %s", back, first)
		}
		list, err := cs.AppsV1().ReplicaSets("shop").List(ctx, metav1.ListOptions{LabelSelector: "app=api"})
		if err != nil || len(list.Items) != 2 {
			t.Errorf("api ReplicaSets = %d (%v), want 2: the old one reused, no third", len(list.Items), err)
		}
	})

	t.Run("a broken render applies and prunes nothing", func(t *testing.T) {
		commit(t, "broken", map[string]string{"apps/shop/kustomization.yaml": strings.Replace(shopFile(t, "kustomization.yaml"), "- front.yaml", "- front.yaml\n- missing.yaml", 1)})
		logs := runOnce(t, exitError)
		if !strings.Contains(logs, "missing.yaml") {
			t.Errorf("the error does not name the missing file:\n%s", logs)
		}
		if _, err := cs.AppsV1().Deployments("shop").Get(ctx, "front", metav1.GetOptions{}); err != nil {
			t.Errorf("front was deleted after a render error: %v", err)
		}
	})

	t.Run("no Secret value in anything roleout wrote", func(t *testing.T) {
		for _, secret := range []string{"Tr0ub4dor-first", "Tr0ub4dor-second"} {
			if strings.Contains(allOutput.String(), secret) {
				t.Errorf("a log, summary or diff shows %q", secret)
			}
			hits, err := repo.Grep("roleout/status", secret)
			if err != nil || len(hits) > 0 {
				t.Errorf("the status branch holds %q: %v %v", secret, hits, err)
			}
		}
		if hits, _ := repo.Grep("roleout/status", "masked:sha256:"); len(hits) == 0 {
			t.Error("the recorded revisions hold no masked Secret values at all: is the Secret recorded?")
		}
	})

	t.Run("an unhealthy wave stops the later waves", func(t *testing.T) {
		commit(t, "db cannot schedule, front grows", map[string]string{
			"apps/shop/kustomization.yaml": shopFile(t, "kustomization.yaml"),
			"apps/shop/db.yaml":            strings.Replace(shopFile(t, "db.yaml"), "      containers:", "      nodeSelector: {no-such-node: \"true\"}\n      containers:", 1),
			"apps/shop/front.yaml":         shopFile(t, "front.yaml") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: front-new, annotations: {roleout.dev/role: front}}\n",
		})
		logs := runOnce(t, exitError)
		if !strings.Contains(logs, "Deployment/shop/db not ready") {
			t.Errorf("the error does not name the unhealthy object:\n%s", logs)
		}
		if _, err := cs.CoreV1().ConfigMaps("shop").Get(ctx, "front-new", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("a later wave's object was applied after an unhealthy wave: %v", err)
		}
	})
}

// apiReplicaSet returns the name of the api Deployment's current
// ReplicaSet.
func apiReplicaSet(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	ctx := context.Background()
	d, err := cs.AppsV1().Deployments("shop").Get(ctx, "api", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.AppsV1().ReplicaSets("shop").List(ctx, metav1.ListOptions{LabelSelector: "app=api"})
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range list.Items {
		if rs.Annotations["deployment.kubernetes.io/revision"] == d.Annotations["deployment.kubernetes.io/revision"] {
			return rs.Name
		}
	}
	t.Fatal("no current ReplicaSet for api")
	return ""
}
