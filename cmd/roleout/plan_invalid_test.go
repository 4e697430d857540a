package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanRefusesInvalidObjects: `roleout render` and `roleout plan` of a
// directory with an object the API server would refuse exit 2 with the
// object, the field and the reason, and print no plan.
func TestPlanRefusesInvalidObjects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, data := range map[string]string{
		"kustomization.yaml": "namespace: shop\nresources: [web.yaml, decode.yaml]\n",
		"web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: "2"
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: "web:1"}]}}
`,
		"decode.yaml": `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: decode}
spec: {leaderWorkerTemplate: null}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range []string{"render", "plan"} {
		t.Run(cmd, func(t *testing.T) {
			code, out, errOut := cli(cmd, dir)
			for _, want := range []string{
				"2 of the rendered objects would be refused by the API server",
				"Deployment/shop/web: spec.replicas: expected numeric (int or float), got string",
				"LeaderWorkerSet/shop/decode: spec.leaderWorkerTemplate: Required value (CRD leaderworkersets.leaderworkerset.x-k8s.io, built into roleout)",
			} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			if code != exitError || out != "" {
				t.Errorf("exit %d, stdout %q; want %d and nothing", code, out, exitError)
			}
		})
	}
}
