package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/revision"
)

func TestPlanLocalDir(t *testing.T) {
	code, out, errOut := cli("plan", "testdata/web", "--output", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s render.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range s.Waves {
		for _, r := range w.Roles {
			got = append(got, r.Name+"@"+r.RevisionName[:len("web-")+len(r.Name)])
			if !r.Changed || r.Revision != 1 || r.Hash == "" || len(r.Objects) == 0 {
				t.Errorf("role %+v: want changed, revision 1, a hash and objects", r)
			}
		}
	}
	if diff := cmp.Diff([]string{"db@web-db", "api@web-api", "worker@web-worker"}, got); diff != "" {
		t.Errorf("roles in apply order (-want +got):\n%s", diff)
	}
	if len(s.Prerequisites) != 1 || s.Prerequisites[0].Kind != "Namespace" || s.Prune == nil {
		t.Errorf("prerequisites %v, prune %v", s.Prerequisites, s.Prune)
	}

	code, out, _ = cli("plan", "testdata/web")
	for _, want := range []string{"prerequisites: Namespace/web", "wave 1 (upgradeOrder 1)", "role db", "wave 2 (upgradeOrder 2)", "role worker",
		"Deployment/worker → ReplicaSet worker-", "(restarts pods)"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("text plan lacks %q:\n%s", want, out)
		}
	}
}

func TestRenderLocalDir(t *testing.T) {
	code, out, errOut := cli("render", "testdata/web")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	order := []string{"# prerequisites", "name: web", "# wave 1 (upgradeOrder 1), role db", "# wave 2 (upgradeOrder 2), role api", "# wave 2 (upgradeOrder 2), role worker"}
	last := -1
	for _, want := range order {
		i := strings.Index(out, want)
		if i < last {
			t.Errorf("%q missing or out of order in:\n%s", want, out)
		}
		last = i
	}
}

func TestPlanErrors(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no dir", []string{"plan"}, "give a kustomize DIR"},
		{"missing dir", []string{"plan", "testdata/nothing"}, "not found"},
		{"config without app", []string{"plan", "--config", "x.yaml"}, "--app is required"},
		{"both", []string{"render", "testdata/web", "--config", "x.yaml", "--app", "a"}, "not both"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := cli(tc.args...)
			if code != exitError || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, exitError, tc.wantErr)
			}
		})
	}
}

func TestPlanExamples(t *testing.T) {
	for dir, roles := range map[string]string{
		"../../examples/llm-serving/overlays/dev":      "prefill decode router",
		"../../examples/llm-serving/overlays/prod":     "prefill decode router",
		"../../examples/llm-serving/overlays/prod-lws": "prefill decode router",
		"../../examples/web-stack":                     "database api frontend",
	} {
		t.Run(dir, func(t *testing.T) {
			code, out, errOut := cli("plan", dir, "--output", "json")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var s render.Summary
			if err := json.Unmarshal([]byte(out), &s); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range s.Waves {
				for _, r := range w.Roles {
					got = append(got, r.Name)
					if len(r.Workloads) != 1 || r.Workloads[0].Predicted.Equal(revision.Prediction{}) {
						t.Errorf("role %s: want one workload with a prediction, got %+v", r.Name, r.Workloads)
					}
				}
			}
			if strings.Join(got, " ") != roles {
				t.Errorf("roles in order = %v, want %s", got, roles)
			}
		})
	}
}
