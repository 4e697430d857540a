package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/model"
)

// customWorkloads is a folder of LeaderWorkerSets and StormServices
// without their CRDs.
const customWorkloads = "../../render/testdata/custom-workloads"

// workloadsOf plans dir (reads confined to root) as JSON and returns its
// workloads by kind/name.
func workloadsOf(t *testing.T, dir, root string) map[string]model.WorkloadSummary {
	t.Helper()
	s := planJSON(t, "plan", dir, "--root", root, "--name", "llm")
	got := map[string]model.WorkloadSummary{}
	for _, w := range s.Waves {
		for _, r := range w.Roles {
			if r.Action != "install" {
				t.Errorf("role %s: action %s, want install (no previous status)", r.Name, r.Action)
			}
			for _, wl := range r.Workloads {
				got[wl.Kind+"/"+wl.Name] = wl
			}
		}
	}
	return got
}

// TestPlanCustomWorkloadsWithoutCRDs: roleout plan of a folder with
// LeaderWorkerSets and StormServices and no CRDs predicts what it
// predicts with the projects' CRDs in the folder, from its built-in
// copies of them, and says so (schema builtin, then render).
func TestPlanCustomWorkloadsWithoutCRDs(t *testing.T) {
	t.Parallel()
	without := workloadsOf(t, customWorkloads, customWorkloads)
	// The same folder with the lws and aibrix modules' CRDs added.
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join(customWorkloads, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in %s: %v", customWorkloads, err)
	}
	for _, f := range files {
		copyFile(t, f, filepath.Join(dir, filepath.Base(f)))
	}
	var crds []string
	for mod, file := range map[string]string{
		"sigs.k8s.io/lws":                "config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml",
		"github.com/vllm-project/aibrix": "config/crd/orchestration/orchestration.aibrix.ai_stormservices.yaml",
	} {
		modDir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
		if err != nil {
			t.Fatalf("go list -m %s: %v", mod, err)
		}
		copyFile(t, filepath.Join(strings.TrimSpace(string(modDir)), file), filepath.Join(dir, filepath.Base(file)))
		crds = append(crds, filepath.Base(file))
	}
	kustomization := filepath.Join(dir, "kustomization.yaml")
	data, err := os.ReadFile(kustomization)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kustomization, []byte(string(data)+"- "+strings.Join(crds, "\n- ")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	with := workloadsOf(t, dir, dir)
	if len(without) != 4 || len(with) != 4 {
		t.Fatalf("workloads without CRDs %v, with %v: want 4", without, with)
	}
	for k, w := range with {
		if w.Schema != "render" || w.Unverified != "" {
			t.Errorf("%s with the CRDs in the render: schema %q, unverified %q", k, w.Schema, w.Unverified)
		}
		w.Schema = "builtin"
		if diff := cmp.Diff(w, without[k]); diff != "" {
			t.Errorf("%s without CRDs (+) and with them in the render (-):\n%s", k, diff)
		}
	}
}

// TestPlanUnverifiedText: a workload roleout cannot predict is printed as
// unverified with the reason, not as a fact.
func TestPlanUnverifiedText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"kustomization.yaml": "namespace: llm\nresources: [storm.yaml]\n",
		"storm.yaml": `apiVersion: orchestration.aibrix.ai/v1alpha1
kind: StormService
metadata:
  name: pd
  annotations: {roleout.dev/role: serving, model.aibrix.ai/sidecar-injection: "true"}
spec:
  selector: {matchLabels: {app: pd}}
  template:
    spec:
      roles: [{name: worker, template: {spec: {containers: [{name: app, image: app:1}]}}}]
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := cli("plan", dir, "--root", dir)
	want := "StormService/llm/pd → no prediction, unverified: the model.aibrix.ai/sidecar-injection annotation lets aibrix's mutating webhook add its runtime sidecar, which roleout does not model (restarts pods)"
	if code != exitOK || !strings.Contains(out, want) || !strings.Contains(out, " install ") {
		t.Errorf("exit %d, %s; want an install and\n%s\nin:\n%s", code, errOut, want, out)
	}
}

// copyFile copies from to to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
