package main

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// generatedApp is a directory apps/NAME/overlays/prod of one ConfigMap.
func generatedApp(name string) map[string]string {
	dir := "apps/" + name + "/overlays/prod/"
	return map[string]string{
		dir + "kustomization.yaml": "resources: [settings.yaml]\n",
		dir + "settings.yaml":      fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {app: %s}\n", name),
	}
}

// TestAppGenerators: a generator makes one app per directory matching
// its pattern, named and placed from the path; a directory that appears
// makes an app at the next poll, and one that leaves git removes its app:
// its status says Removed and, with pruneRemoved, its objects are gone
// from the cluster, while the other apps stay.
func TestAppGenerators(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(cluster.Config)
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "generated")
	files := generatedApp("gena")
	for k, v := range generatedApp("genb") {
		files[k] = v
	}
	if _, err := repo.Commit("main", "two apps", files); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, repo.URL(), "  []\nappGenerators:\n- {directories: \"apps/*/overlays/prod\", name: \"{{dir 1}}\", template: {namespace: \"gen-{{dir 1}}\", prune: true, allowedNamespaces: [\"gen-{{dir 1}}\"]}, pruneRemoved: true}\n")
	for _, ns := range []string{"gen-gena", "gen-genb", "gen-genc"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	if code, _, logs := cli("run", "--once", "--config", cfg); code != exitOK {
		t.Fatalf("run --once: exit %d:\n%s", code, logs)
	}
	for _, app := range []string{"gena", "genb"} {
		if st := readStatus(t, repo, app); st.Phase != status.PhaseSucceeded {
			t.Fatalf("%s: %s %q", app, st.Phase, st.Message)
		}
		if _, err := cs.CoreV1().ConfigMaps("gen-"+app).Get(ctx, "settings", metav1.GetOptions{}); err != nil {
			t.Fatalf("%s's ConfigMap: %v", app, err)
		}
	}
	if _, err := repo.Delete("main", "genb leaves", "apps/genb"); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Commit("main", "genc comes", generatedApp("genc")); err != nil {
		t.Fatal(err)
	}
	if code, _, logs := cli("run", "--once", "--config", cfg); code != exitOK {
		t.Fatalf("run --once after the change: exit %d:\n%s", code, logs)
	}
	if st := readStatus(t, repo, "genb"); st.Phase != status.PhaseRemoved {
		t.Errorf("genb: %s %q; want %s", st.Phase, st.Message, status.PhaseRemoved)
	}
	if _, err := cs.CoreV1().ConfigMaps("gen-genb").Get(ctx, "settings", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("genb's ConfigMap after its directory left git (pruneRemoved): %v", err)
	}
	for _, app := range []string{"gena", "genc"} {
		if st := readStatus(t, repo, app); st.Phase != status.PhaseSucceeded {
			t.Errorf("%s: %s %q", app, st.Phase, st.Message)
		}
	}
}
