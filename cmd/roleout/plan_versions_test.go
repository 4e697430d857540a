package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// versionsApp is a directory of one workload of each kind whose
// prediction depends on a version: the three apps kinds on Kubernetes',
// the LeaderWorkerSet on the lws controller's.
var versionsApp = map[string]string{
	"kustomization.yaml": "namespace: up\nresources: [workloads.yaml]\n",
	"workloads.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, annotations: {roleout.dev/role: web}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: registry.example/web:1}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, annotations: {roleout.dev/role: db}}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: registry.example/db:1}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, annotations: {roleout.dev/role: agent}}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: registry.example/agent:1}]}
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: decode, annotations: {roleout.dev/role: decode}}
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec: {containers: [{name: app, image: registry.example/model:1}]}
`,
}

// TestPlanForVersions plans one directory for versions roleout models
// and for versions it does not: a modelled version (the linked one, or
// 1.36 through its helper) rolls nothing here and leaves every
// prediction verified; another names each workload it
// affects as unknown, with the version in the reason, and marks its
// prediction unverified, while the workloads it does not affect stay
// unchanged. A version that does not parse, or a controller roleout does
// not know, is refused.
func TestPlanForVersions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range versionsApp {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	apps := []string{"DaemonSet/up/agent", "Deployment/up/web", "StatefulSet/up/db"}
	lws := []string{"LeaderWorkerSet/up/decode"}
	cases := []struct {
		name             string
		flags            []string
		unchanged        []string
		unknown          []string
		unknownMentions  string
		unverifiedByKind map[string]bool
	}{
		{name: "the modelled Kubernetes", flags: []string{"--kubernetes-version", "1.37.2"},
			unchanged: append(slices.Clone(apps), lws...)},
		// 1.36 has a helper (make predictors): its own code predicts, and
		// these templates are ones its controllers find as 1.37's do.
		{name: "an older Kubernetes with a helper", flags: []string{"--kubernetes-version", "1.36"},
			unchanged: append(slices.Clone(apps), lws...)},
		{name: "an older Kubernetes without one", flags: []string{"--kubernetes-version", "1.35"},
			unchanged: lws, unknown: apps, unknownMentions: "Kubernetes v1.35",
			unverifiedByKind: map[string]bool{"Deployment": true, "StatefulSet": true, "DaemonSet": true}},
		{name: "an older lws", flags: []string{"--controller", "lws=0.8.1"},
			unchanged: apps, unknown: lws, unknownMentions: "lws v0.8.1",
			unverifiedByKind: map[string]bool{"LeaderWorkerSet": true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := planJSON(t, append([]string{"plan", dir}, c.flags...)...)
			u := s.Upgrade
			if u == nil {
				t.Fatalf("plan %v has no upgrade", c.flags)
			}
			if len(u.Rolls) != 0 {
				t.Errorf("rolls %v: roleout models one version of each, so nothing can be known to roll", u.Rolls)
			}
			slices.Sort(c.unchanged)
			if got := refStrings(u.Unchanged); !slices.Equal(got, c.unchanged) {
				t.Errorf("unchanged = %v, want %v", got, c.unchanged)
			}
			var unknown []string
			for _, w := range u.Unknown {
				unknown = append(unknown, w.Ref.String())
				if !strings.Contains(w.Reason, c.unknownMentions) || !strings.Contains(w.Reason, "does not model") {
					t.Errorf("%s unknown because %q, want the version named", w.Ref, w.Reason)
				}
			}
			slices.Sort(unknown)
			if !slices.Equal(unknown, c.unknown) {
				t.Errorf("unknown = %v, want %v", unknown, c.unknown)
			}
			for _, w := range summaryWorkloads(s) {
				if want := c.unverifiedByKind[w.Kind]; (w.Unverified != "") != want || (want && !strings.Contains(w.Unverified, c.unknownMentions)) {
					t.Errorf("%s %s unverified %q, want it marked: %v", w.Kind, w.Name, w.Unverified, want)
				}
				if w.Predicted.Equal(object.Identity{}) {
					t.Errorf("%s %s has no prediction", w.Kind, w.Name)
				}
			}
		})
	}

	// An app of an agent config from git takes the same flags.
	_, repo, _ := newSourceRepo(t)
	config := writeConfig(t, repo.URL(), "- {name: web, path: apps/web, namespace: web}\n")
	if u := planJSON(t, "plan", "--config", config, "--app", "web", "--kubernetes-version", "v1.35.4").Upgrade; u == nil || len(u.Unknown) != 3 || u.Kubernetes != "v1.35.4" {
		t.Errorf("plan --config for Kubernetes v1.35.4: upgrade %+v, want its 3 Deployments unknown", u)
	}

	code, out, errOut := cli("plan", dir, "--kubernetes-version", "1.35")
	for _, want := range []string{"upgrade to Kubernetes v1.35, with no change in git:", "rolls (0): none",
		"unchanged (1): LeaderWorkerSet/up/decode", "unknown: Deployment/up/web: roleout does not model Kubernetes v1.35 (it models v1.37)"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("text plan lacks %q (exit %d, %s):\n%s", want, code, errOut, out)
		}
	}
	// The binary finds the helpers beside itself, with nothing set.
	bin := exec.Command(roleoutBinary(t), "plan", dir, "--kubernetes-version", "1.36")
	bin.Env = slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "ROLEOUT_PREDICTORS=") })
	if out, err := bin.CombinedOutput(); err != nil || !strings.Contains(string(out), "unchanged (4)") || strings.Contains(string(out), "unverified") {
		t.Errorf("bin/roleout plan --kubernetes-version 1.36 (%v):\n%s", err, out)
	}
	if code, out, _ := cli("plan", dir); code != exitOK || strings.Contains(out, "upgrade to") {
		t.Errorf("a plan with no version named shows an upgrade (exit %d):\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"--kubernetes-version", "banana"},
		{"--controller", "flux=v2.0.0"},
		{"--controller", "lws"},
		{"--controller", "lws=latest"},
	} {
		code, _, errOut := cli(append([]string{"plan", dir}, bad...)...)
		if code != exitError || !strings.Contains(errOut, bad[0]) {
			t.Errorf("plan %v: exit %d, %q; want exit %d naming %s", bad, code, errOut, exitError, bad[0])
		}
	}
}

// refStrings returns refs as Kind/namespace/name, sorted.
func refStrings(refs []object.Ref) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.String())
	}
	slices.Sort(out)
	return out
}

// summaryWorkloads returns every workload of s.
func summaryWorkloads(s model.Summary) []model.WorkloadSummary {
	var out []model.WorkloadSummary
	for _, w := range s.Waves {
		for _, r := range w.Roles {
			out = append(out, r.Workloads...)
		}
	}
	return out
}
