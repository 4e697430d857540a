package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/render/schema"
)

// projectCRDs reads the LeaderWorkerSet and StormService CRDs as their
// projects ship them, from the lws and aibrix modules roleout links.
func projectCRDs(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for mod, file := range map[string]string{
		"sigs.k8s.io/lws":                "config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml",
		"github.com/vllm-project/aibrix": "config/crd/orchestration/orchestration.aibrix.ai_stormservices.yaml",
	} {
		dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
		if err != nil {
			t.Fatalf("go list -m %s: %v", mod, err)
		}
		data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), file))
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(&u.Object); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// customWorkloads renders testdata/custom-workloads: LeaderWorkerSets and
// StormServices, no CRDs.
func customWorkloads(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	res, err := (&render.Renderer{}).Build(context.Background(), render.Source{Root: "../testdata"}, "custom-workloads", render.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return res.Objects
}

// predictions returns the plan's workloads as "kind/name" → predicted
// identity (JSON), schema and unverified reason.
func predictions(t *testing.T, objs []*unstructured.Unstructured, facts Facts) map[string]string {
	t.Helper()
	p, err := New(objs, Options{App: "llm"}, facts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, w := range p.Summarize(nil).Waves {
		for _, r := range w.Roles {
			for _, wl := range r.Workloads {
				pred, err := json.Marshal(wl)
				if err != nil {
					t.Fatal(err)
				}
				out[wl.Kind+"/"+wl.Name] = string(pred)
			}
		}
	}
	return out
}

// TestPlanWithoutCRDsIsThePlanWithThem plans a folder of LeaderWorkerSets
// and StormServices that has no CRDs: the predictions equal those of the
// same folder with the projects' CRDs in the cluster or in the render,
// and say which schema they came from.
func TestPlanWithoutCRDsIsThePlanWithThem(t *testing.T) {
	t.Parallel()
	objs := customWorkloads(t)
	crds := projectCRDs(t)
	withSchema := func(plan map[string]string, schema schema.Schema) map[string]string {
		out := map[string]string{}
		for k, v := range plan {
			out[k] = strings.Replace(v, `"schema":"`+string(schema)+`"`, `"schema":"?"`, 1)
		}
		return out
	}
	builtin := predictions(t, objs, Facts{})
	cluster := predictions(t, objs, Facts{CRDs: crds})
	inRender := predictions(t, append(append([]*unstructured.Unstructured(nil), objs...), crds...), Facts{})
	if len(builtin) != 4 {
		t.Fatalf("workloads %v, want 2 LeaderWorkerSets and 2 StormServices", builtin)
	}
	for k, v := range builtin {
		if !strings.Contains(v, `"schema":"builtin"`) || strings.Contains(v, "unverified") {
			t.Errorf("%s without CRDs: %s; want the built-in schema and no unverified", k, v)
		}
	}
	if diff := cmp.Diff(withSchema(cluster, schema.SchemaCluster), withSchema(builtin, schema.SchemaBuiltin)); diff != "" {
		t.Errorf("plan without CRDs (+) against the plan with the cluster's (-):\n%s", diff)
	}
	if diff := cmp.Diff(withSchema(inRender, schema.SchemaRender), withSchema(builtin, schema.SchemaBuiltin)); diff != "" {
		t.Errorf("plan without CRDs (+) against the plan with them in the render (-):\n%s", diff)
	}
}

// TestPlanRenderCRDWins: a render whose LeaderWorkerSet CRD defaults the
// group size to 4 (the project's: 1) predicts decode, which leaves its
// size to the default, as a decode of size 4, whatever the cluster has.
func TestPlanRenderCRDWins(t *testing.T) {
	t.Parallel()
	objs := customWorkloads(t)
	crds := projectCRDs(t)
	lws := crds[0].DeepCopy()
	if lws.GetName() != "leaderworkersets.leaderworkerset.x-k8s.io" {
		lws = crds[1].DeepCopy()
	}
	versions, _, _ := unstructured.NestedSlice(lws.Object, "spec", "versions")
	if err := unstructured.SetNestedField(versions[0].(map[string]any), int64(4),
		"schema", "openAPIV3Schema", "properties", "spec", "properties", "leaderWorkerTemplate", "properties", "size", "default"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedSlice(lws.Object, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	var sized []*unstructured.Unstructured
	for _, o := range objs {
		o = o.DeepCopy()
		if o.GetName() == "decode" {
			if err := unstructured.SetNestedField(o.Object, int64(4), "spec", "leaderWorkerTemplate", "size"); err != nil {
				t.Fatal(err)
			}
		}
		sized = append(sized, o)
	}
	const decode = "LeaderWorkerSet/decode"
	want := predictions(t, sized, Facts{})[decode]
	got := predictions(t, append(append([]*unstructured.Unstructured(nil), objs...), lws), Facts{CRDs: crds})[decode]
	if got != strings.Replace(want, `"schema":"builtin"`, `"schema":"render"`, 1) {
		t.Errorf("decode with the render's CRD: %s\nwant the prediction of size 4: %s", got, want)
	}
	if def := predictions(t, objs, Facts{})[decode]; def == want {
		t.Errorf("decode with the project's default predicts as size 4: %s", def)
	}
}

// TestPlanUnverifiedWorkload: a StormService whose template aibrix's
// webhook rewrites is listed without a prediction, with the reason, and
// restarts pods when its object changes.
func TestPlanUnverifiedWorkload(t *testing.T) {
	t.Parallel()
	storm := func(image string) *unstructured.Unstructured {
		return obj(t, `apiVersion: orchestration.aibrix.ai/v1alpha1
kind: StormService
metadata:
  name: pd
  namespace: llm
  annotations: {roleout.dev/role: serving, model.aibrix.ai/sidecar-injection: "true"}
spec:
  selector: {matchLabels: {app: pd}}
  template:
    spec:
      roles: [{name: worker, template: {spec: {containers: [{name: app, image: `+image+`}]}}}]
`)
	}
	cm := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: llm, annotations: {roleout.dev/role: serving}}\ndata: {a: b}\n")
	p1, err := New([]*unstructured.Unstructured{storm("app:1"), cm}, Options{App: "llm"}, Facts{})
	if err != nil {
		t.Fatal(err)
	}
	w := p1.Summarize(nil).Waves[0].Roles[0].Workloads
	if len(w) != 1 || !w[0].Predicted.Equal(object.Identity{}) || w[0].Schema != "" || !w[0].RestartsPods ||
		!strings.Contains(w[0].Unverified, "aibrix's mutating webhook add its runtime sidecar") {
		t.Fatalf("workloads %+v, want the StormService unverified, without a prediction, its pods created", w)
	}
	history := map[string][]revision.RoleRevision{"serving": p1.Roles()[0].History}
	cm2 := cm.DeepCopy()
	cm2.Object["data"] = map[string]any{"a": "c"}
	for name, c := range map[string]struct {
		objs []*unstructured.Unstructured
		want bool
	}{
		"only the ConfigMap changed": {[]*unstructured.Unstructured{storm("app:1"), cm2}, false},
		"the StormService changed":   {[]*unstructured.Unstructured{storm("app:2"), cm}, true},
	} {
		p2, err := New(c.objs, Options{App: "llm", History: history}, Facts{})
		if err != nil {
			t.Fatal(err)
		}
		r := p2.Summarize(nil).Waves[0].Roles[0]
		if r.Action != "update" || r.Workloads[0].RestartsPods != c.want || r.Workloads[0].Unverified == "" {
			t.Errorf("%s: %s %+v, want update, restartsPods %v, unverified", name, r.Action, r.Workloads[0], c.want)
		}
	}
}

// TestPlanUnpredictedKinds: an object with a pod template of a kind
// roleout does not predict (a Job, a CronJob, a custom kind shaped like a
// Deployment) is listed as a workload, unverified, with no prediction;
// its pods restart when the object changes. Objects without a pod
// template are not workloads.
func TestPlanUnpredictedKinds(t *testing.T) {
	t.Parallel()
	job := func(image string) *unstructured.Unstructured {
		return obj(t, `apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: shop, annotations: {roleout.dev/role: db}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: `+image+`}]
`)
	}
	cron := obj(t, `apiVersion: batch/v1
kind: CronJob
metadata: {name: backup, namespace: shop, annotations: {roleout.dev/role: db}}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: backup, image: backup:1}]
`)
	cm := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop, annotations: {roleout.dev/role: db}}\ndata: {a: b}\n")
	p1, err := New([]*unstructured.Unstructured{job("migrate:1"), cron, cm}, Options{App: "shop"}, Facts{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]model.WorkloadSummary{}
	for _, w := range p1.Summarize(nil).Waves[0].Roles[0].Workloads {
		got[w.Kind] = w
	}
	if len(got) != 2 {
		t.Fatalf("workloads %+v, want the Job and the CronJob", got)
	}
	for kind, group := range map[string]string{"Job": "Job.batch", "CronJob": "CronJob.batch"} {
		w := got[kind]
		if !w.Predicted.IsZero() || !w.RestartsPods || !strings.Contains(w.Unverified, "no prediction for kind "+group) {
			t.Errorf("%s: %+v, want no prediction, unverified naming %s, pods created", kind, w, group)
		}
	}
	history := map[string][]revision.RoleRevision{"db": p1.Roles()[0].History}
	cm2 := cm.DeepCopy()
	cm2.Object["data"] = map[string]any{"a": "c"}
	for name, c := range map[string]struct {
		objs []*unstructured.Unstructured
		want bool
	}{
		"only the ConfigMap changed": {[]*unstructured.Unstructured{job("migrate:1"), cron, cm2}, false},
		"the Job changed":            {[]*unstructured.Unstructured{job("migrate:2"), cron, cm}, true},
	} {
		p2, err := New(c.objs, Options{App: "shop", History: history}, Facts{})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range p2.Summarize(nil).Waves[0].Roles[0].Workloads {
			if w.Kind == "Job" && w.RestartsPods != c.want {
				t.Errorf("%s: Job restartsPods %v, want %v", name, w.RestartsPods, c.want)
			}
		}
	}
}
