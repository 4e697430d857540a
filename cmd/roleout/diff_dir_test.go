package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
)

// TestDiffDir: `roleout diff DIR --kubeconfig` plans a local directory
// with what the cluster says and dry-runs it there: exit 1 with the
// objects to create and the pods they would start, the same predicted
// identity as `roleout plan DIR`, and nothing written. An invalid object
// is exit 2 with its field path, before anything is sent.
func TestDiffDir(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(replicas string) {
		t.Helper()
		files := map[string]string{
			"kustomization.yaml": "resources: [app.yaml]\n",
			"app.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: diffdir-settings, namespace: default}
data: {color: blue}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: diffdir-web, namespace: default, annotations: {roleout.dev/role: web}}
spec:
  replicas: ` + replicas + `
  selector: {matchLabels: {app: diffdir-web}}
  template:
    metadata: {labels: {app: diffdir-web}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
`,
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("2")
	code, out, errOut := cli("diff", dir, "--root", dir, "--name", "diffdir", "--kubeconfig", cluster.Kubeconfig)
	if code != exitChanges {
		t.Fatalf("diff DIR: exit %d, want %d:\n%s\n%s", code, exitChanges, out, errOut)
	}
	for _, want := range []string{"create ConfigMap/default/diffdir-settings", "create Deployment/default/diffdir-web", "pods restarted"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff DIR output lacks %q:\n%s", want, out)
		}
	}
	code, planOut, errOut := cli("plan", dir, "--root", dir, "--name", "diffdir", "--output", "json")
	if code != exitOK {
		t.Fatalf("plan DIR: exit %d: %s", code, errOut)
	}
	var plan struct {
		Waves []struct {
			Roles []struct {
				Workloads []struct {
					Predicted struct {
						ReplicaSetName string `json:"replicaSetName"`
					} `json:"predicted"`
				} `json:"workloads"`
			} `json:"roles"`
		} `json:"waves"`
	}
	if err := json.Unmarshal([]byte(planOut), &plan); err != nil {
		t.Fatal(err)
	}
	rs := ""
	for _, w := range plan.Waves {
		for _, r := range w.Roles {
			for _, wl := range r.Workloads {
				rs = wl.Predicted.ReplicaSetName
			}
		}
	}
	if rs == "" || !strings.Contains(out, "ReplicaSet "+rs) {
		t.Errorf("diff DIR does not name the ReplicaSet plan DIR predicts (%q):\n%s", rs, out)
	}
	if _, err := cs.AppsV1().Deployments("default").Get(context.Background(), "diffdir-web", metav1.GetOptions{}); err == nil {
		t.Error("diff DIR created the Deployment")
	}

	write(`"two"`)
	code, out, errOut = cli("diff", dir, "--root", dir, "--name", "diffdir", "--kubeconfig", cluster.Kubeconfig)
	if code != exitError || !strings.Contains(errOut, "Deployment/default/diffdir-web: spec.replicas") {
		t.Errorf("diff DIR of an invalid object: exit %d, want %d naming spec.replicas:\n%s\n%s", code, exitError, out, errOut)
	}
}
