package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// liveVersions returns the resourceVersion of every Deployment and
// ConfigMap in ns, by kind/name.
func liveVersions(t *testing.T, cs kubernetes.Interface, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ds, err := cs.AppsV1().Deployments(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds.Items {
		out["Deployment/"+d.Name] = d.ResourceVersion
	}
	cms, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cms.Items {
		out["ConfigMap/"+c.Name] = c.ResourceVersion
	}
	return out
}

// TestBadInputAppliesNothing commits one bad input after another on top
// of an app that rolled out, against the real git server and cluster.
// Each gives exit 2 and an error that names what and where; nothing is
// applied or pruned (every live object keeps its resourceVersion); the
// status records the failure and the history keeps the earlier rollout.
func TestBadInputAppliesNothing(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	const ns = "bad-input"
	repo, _ := webRepo(t, "bad-input", ns)
	config := writeConfig(t, repo.URL(), "- {name: bad, path: apps/web, prune: true}\n")
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("first rollout: exit %d\n%s", code, logs)
	}
	live := liveVersions(t, cs, ns)
	kust, err := repo.Show("refs/heads/main", "apps/web/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withResources := func(extra ...string) string {
		return strings.Replace(kust, "resources:\n", "resources:\n- "+strings.Join(extra, "\n- ")+"\n", 1)
	}
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {a: b}\n"
	var many strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&many, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i)
	}
	cases := []struct {
		name    string
		files   map[string]string
		commit  func(t *testing.T) // instead of files
		wantErr []string
	}{
		{"malformed YAML", map[string]string{"apps/web/kustomization.yaml": withResources("broken.yaml"),
			"apps/web/broken.yaml": "kind: ConfigMap\nmetadata:\n  name: x\n   bad: indent\n"},
			nil, []string{"app bad", "broken.yaml", "line 4"}},
		{"a kustomization that escapes the repository", map[string]string{"apps/web/kustomization.yaml": withResources("../../../outside")},
			nil, []string{"app bad", "outside the repository"}},
		{"a symlink to /etc", map[string]string{"apps/web/kustomization.yaml": withResources("etc/hostname")},
			func(t *testing.T) {
				if _, err := repo.CommitSymlink("main", "symlink", "apps/web/etc", "/etc"); err != nil {
					t.Fatal(err)
				}
			}, []string{"app bad", "is outside the repository"}},
		{"a remote base", map[string]string{"apps/web/kustomization.yaml": withResources("https://github.com/org/repo//base?ref=v1")},
			nil, []string{"app bad", "is not allowed", "render.remoteHosts"}},
		{"an exec plugin", map[string]string{"apps/web/kustomization.yaml": kust + "generators: [gen.yaml]\n",
			"apps/web/gen.yaml": "apiVersion: example.com/v1\nkind: Gen\nmetadata:\n  name: g\n  annotations:\n    config.kubernetes.io/function: |\n      exec: {path: /bin/sh}\n"},
			nil, []string{"app bad", "render.enableExec"}},
		{"a 100 MB file", map[string]string{"apps/web/kustomization.yaml": withResources("big.yaml"),
			"apps/web/big.yaml": "# " + strings.Repeat("x", 100<<20) + "\n"},
			nil, []string{"app bad", "big.yaml is", "over the limit of 16777216 bytes per file"}},
		{"100,000 objects", map[string]string{"apps/web/kustomization.yaml": withResources("many.yaml"), "apps/web/many.yaml": many.String()},
			nil, []string{"app bad", "many.yaml", "limit maxObjects"}},
		{"a role with conflicting upgradeOrder", map[string]string{"apps/web/kustomization.yaml": withResources("extra.yaml"),
			"apps/web/extra.yaml": strings.Replace(cm, "{name: extra}", "{name: extra, annotations: {roleout.dev/role: db, roleout.dev/upgrade-order: \"7\"}}", 1)},
			nil, []string{"app bad", "role db", "ConfigMap/bad-input/extra"}},
		{"an object the API server would refuse", map[string]string{"apps/web/kustomization.yaml": withResources("extra.yaml"),
			"apps/web/extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {a b: x}\n"},
			nil, []string{"app bad", "would be refused by the API server", "ConfigMap/bad-input/extra: data[a b]: Invalid value"}},
		{"duplicate objects", map[string]string{"apps/web/kustomization.yaml": withResources("extra.yaml", "extra2.yaml"),
			"apps/web/extra.yaml": cm, "apps/web/extra2.yaml": cm},
			nil, []string{"app bad", "ConfigMap", "extra"}},
		{"a status branch hand-edited into invalid YAML", nil, func(t *testing.T) {
			if _, err := repo.Commit("roleout/status", "hand edit", map[string]string{"bad/status.yaml": "phase: [Succeeded\nroles: {\n"}); err != nil {
				t.Fatal(err)
			}
			if _, err := repo.Commit("main", "a change", map[string]string{"apps/web/extra.yaml": cm, "apps/web/kustomization.yaml": withResources("extra.yaml")}); err != nil {
				t.Fatal(err)
			}
		}, []string{"app bad", "bad/status.yaml", "fix or delete it"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			statusBefore, err := repo.Show("roleout/status", "bad/history.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if tc.files != nil {
				if _, err := repo.Commit("main", tc.name, tc.files); err != nil {
					t.Fatal(err)
				}
			}
			if tc.commit != nil {
				tc.commit(t)
			}
			code, _, logs := cli("run", "--once", "--config", config)
			if code != exitError {
				t.Errorf("exit %d, want 2", code)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(logs, want) {
					t.Errorf("the error does not contain %q:\n%s", want, lastLines(logs, 5))
				}
			}
			if got := liveVersions(t, cs, ns); fmt.Sprint(got) != fmt.Sprint(live) {
				t.Errorf("live objects changed: %v, want %v", got, live)
			}
			if history, err := repo.Show("roleout/status", "bad/history.yaml"); err != nil || !strings.HasPrefix(history, statusBefore) {
				t.Errorf("history.yaml lost records: %v\nbefore:\n%s\nafter:\n%s", err, statusBefore, history)
			}
			restore(t, repo, kust)
			if tc.name == "a status branch hand-edited into invalid YAML" {
				if _, err := repo.Delete("roleout/status", "undo the hand edit", "bad/status.yaml"); err != nil {
					t.Fatal(err)
				}
			}
			if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
				t.Fatalf("after the fix: exit %d\n%s", code, lastLines(logs, 10))
			}
		})
	}
	if got := liveVersions(t, cs, ns); fmt.Sprint(got) != fmt.Sprint(live) {
		t.Errorf("after every bad input and its fix, live objects changed: %v, want %v", got, live)
	}
	if st := readStatus(t, repo, "bad"); st.Phase != status.PhaseSucceeded {
		t.Errorf("final status %s: %s", st.Phase, st.Message)
	}
}

// restore puts the app's kustomization back and removes what the bad
// inputs added.
func restore(t *testing.T, repo *testgit.Repo, kust string) {
	t.Helper()
	if _, err := repo.Delete("main", "remove bad files", "apps/web/broken.yaml", "apps/web/etc", "apps/web/gen.yaml",
		"apps/web/big.yaml", "apps/web/many.yaml", "apps/web/extra.yaml", "apps/web/extra2.yaml"); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Commit("main", "restore", map[string]string{"apps/web/kustomization.yaml": kust}); err != nil {
		t.Fatal(err)
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
