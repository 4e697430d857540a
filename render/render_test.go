package render

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/render/revision"
)

// writeTree writes files (slash paths → content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const baseDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  annotations: {roleout.dev/role: api, roleout.dev/upgrade-order: "2"}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: "api:1.0"}]}
`

func TestBuildOverlay(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"base/kustomization.yaml":          "resources: [deployment.yaml]\n",
		"base/deployment.yaml":             baseDeployment,
		"overlays/prod/kustomization.yaml": "resources: [../../base]\nimages: [{name: api, newTag: '2.0'}]\n",
	})
	res, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "overlays/prod", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	objs := res.Objects
	if len(objs) != 1 || objs[0].GetName() != "api" {
		t.Fatalf("objects = %v", objs)
	}
	containers, _, _ := unstructured.NestedSlice(objs[0].Object, "spec", "template", "spec", "containers")
	if img := containers[0].(map[string]any)["image"]; img != "api:2.0" {
		t.Errorf("image = %v, want the overlay's api:2.0", img)
	}
	// Rendered objects must hold JSON types only, so that they can be
	// copied and hashed.
	if _, err := revision.TemplateHash(objs, nil); err != nil {
		t.Errorf("hash rendered objects: %v", err)
	}
}
