package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testgit"
)

// writesAs returns the writes the API server completed for user that
// were not dry runs, as "verb resource namespace/name".
func writesAs(t *testing.T, user string) []string {
	t.Helper()
	all, err := cluster.Writes("")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range all {
		if w.As == user && !w.DryRun && w.Code < 300 {
			out = append(out, w.Verb+" "+w.Resource+" "+w.Namespace+"/"+w.Name)
		}
	}
	return out
}

// TestDryRunsWriteNothing runs `run --once --dry-run`, `plan` and `diff`
// on an app never applied, that ships a CRD, a Namespace and a custom
// resource of that CRD, with an agent namespace that holds no mask key:
// the API server's audit log shows no write by any of them (server-side
// dry runs aside), nothing exists afterwards, neither a status nor the
// preview of an open pull request is written to git (the status branch
// is not created), and the dry run still says what a rollout would create, the
// custom resource as pending on its CRD.
func TestDryRunsWriteNothing(t *testing.T) {
	t.Parallel()
	const ns, user = "dryrun-nothing", "roleout-dry-run-test"
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, ns)
	crd := strings.NewReplacer("gadget", "drything", "Gadget", "DryThing", "example.com", "dryrun.roleout.test").Replace(ownForeignCRD)
	commitOverlay(t, repo, ns, "an app with a CRD", map[string]string{
		"namespace.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + ns + "}\n",
		"crd.yaml":       crd,
		"thing.yaml":     "apiVersion: dryrun.roleout.test/v1\nkind: DryThing\nmetadata: {name: w, namespace: " + ns + "}\nspec: {size: 1}\n",
		"config.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: " + ns + "}\ndata: {a: b}\n",
	})
	config := writeConfig(t, repo.URL(), "- {name: "+ns+", path: apps/"+ns+", namespace: "+ns+`, allowedKinds: [{group: "", kind: "*"}, {group: apiextensions.k8s.io, kind: CustomResourceDefinition}, {group: dryrun.roleout.test, kind: DryThing}]}`+"\n"+
		"status: {clusterRevisions: {namespace: dryrun-agent-home}}\n")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	// A pull request is open: a dry run previews it no more than it
	// records a status.
	head, err := repo.Rev("refs/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.PullRequest(1, head); err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "branch: main}", "branch: main, pullRequests: {refs: [\"refs/pull/*/head\"]}}", 1))
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, impersonating(t, cluster.Kubeconfig, user), 0o600); err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "kubeconfig: \""+cluster.Kubeconfig+"\"", "kubeconfig: \""+kubeconfig+"\"", 1))
	if err := os.WriteFile(config, data, 0o644); err != nil {
		t.Fatal(err)
	}

	code, stdout, logs := cli("run", "--once", "--dry-run", "--config", config)
	if code != exitOK {
		t.Fatalf("run --once --dry-run: exit %d\n%s\n%s", code, stdout, logs)
	}
	for _, want := range []string{"dry run: would create", "DryThing/" + ns + "/w", "dry run: nothing written"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the dry run's log lacks %q:\n%s", want, logs)
		}
	}
	for _, args := range [][]string{{"plan", "--config", config, "--app", ns}, {"diff", "--config", config, "--app", ns}} {
		if code, out, errOut := cli(args...); code != exitOK && code != exitChanges {
			t.Errorf("%s: exit %d\n%s\n%s", args[0], code, out, errOut)
		}
	}
	if w := writesAs(t, user); len(w) != 0 {
		t.Errorf("dry runs, plan and diff wrote to the cluster: %v", w)
	}
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Namespace %s after the dry runs: %v, want none", ns, err)
	}
	if _, err := repo.Rev("refs/heads/roleout/status"); err == nil {
		t.Error("the dry run created the status branch")
	}
}
