package main

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// configMapApp serves an app at apps/<name> whose overlay holds one
// ConfigMap <name>-settings with data {level: level}, in namespace
// default.
func configMapApp(t *testing.T, name, level string) *testgit.Repo {
	t.Helper()
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, name)
	if _, err := repo.Commit("main", name, map[string]string{
		"apps/" + name + "/kustomization.yaml": "resources: [settings.yaml]\n",
		"apps/" + name + "/settings.yaml":      settingsYAML(name, level),
	}); err != nil {
		t.Fatal(err)
	}
	return repo
}

func settingsYAML(name, level string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "-settings}\ndata: {level: " + level + "}\n"
}

// runApp runs `roleout run --once` and checks the exit code.
func runApp(t *testing.T, config string, wantCode int) string {
	t.Helper()
	code, _, logs := cli("run", "--once", "--config", config)
	if code != wantCode {
		t.Fatalf("run --once exit %d, want %d:\n%s", code, wantCode, logs)
	}
	return logs
}

// TestRunEmptyRender empties an app's overlay: without allowEmpty the
// render is an error and its object stays; with allowEmpty and prune the
// rollout succeeds and prunes it.
func TestRunEmptyRender(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	repo := configMapApp(t, "scratch", "info")
	app := "- {name: scratch, path: apps/scratch, namespace: default, prune: true"
	runApp(t, writeConfig(t, repo.URL(), app+"}\n"), exitOK)
	if _, err := repo.Commit("main", "nothing left", map[string]string{"apps/scratch/kustomization.yaml": "resources: []\n"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		allowEmpty bool
		wantCode   int
		wantLog    string
		wantExists bool
		wantPhase  string
	}{
		{"without allowEmpty", false, exitError, "no objects (set allowEmpty: true if that is intended)", true, status.PhaseFailed},
		{"with allowEmpty and prune", true, exitOK, "msg=pruned app=scratch", false, status.PhaseSucceeded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conf := app + "}\n"
			if tc.allowEmpty {
				conf = app + ", allowEmpty: true}\n"
			}
			logs := runApp(t, writeConfig(t, repo.URL(), conf), tc.wantCode)
			if !strings.Contains(logs, tc.wantLog) {
				t.Errorf("logs lack %q:\n%s", tc.wantLog, logs)
			}
			_, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "scratch-settings", metav1.GetOptions{})
			if exists := err == nil; exists != tc.wantExists || (err != nil && !apierrors.IsNotFound(err)) {
				t.Errorf("scratch-settings exists = %v (%v), want %v", exists, err, tc.wantExists)
			}
			if st := readStatus(t, repo, "scratch"); st.Phase != tc.wantPhase {
				t.Errorf("status phase %s (%s), want %s", st.Phase, st.Message, tc.wantPhase)
			}
		})
	}
}

// TestRunForceTakesOwnership has another field manager change a field of
// an app's object, then changes the field in git: without force: true the
// rollout fails naming the manager and the field (in the logs and in the
// role's status); with it roleout takes the field over.
func TestRunForceTakesOwnership(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	repo := configMapApp(t, "owned", "info")
	app := "- {name: owned, path: apps/owned, namespace: default"
	runApp(t, writeConfig(t, repo.URL(), app+"}\n"), exitOK)

	live, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "owned-settings", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	live.Data["level"] = "debug"
	if _, err := cs.CoreV1().ConfigMaps("default").Update(ctx, live, metav1.UpdateOptions{FieldManager: "ops-console"}); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Commit("main", "level warn", map[string]string{"apps/owned/settings.yaml": settingsYAML("owned", "warn")}); err != nil {
		t.Fatal(err)
	}
	const conflict = `ConfigMap/default/owned-settings: conflict: field manager "ops-console" owns .data.level: set force: true on the app`
	tests := []struct {
		name      string
		force     bool
		wantCode  int
		wantLevel string
	}{
		{"without force", false, exitError, "debug"},
		{"with force", true, exitOK, "warn"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conf := app + "}\n"
			if tc.force {
				conf = app + ", force: true}\n"
			}
			logs := runApp(t, writeConfig(t, repo.URL(), conf), tc.wantCode)
			st := statusRole(readStatus(t, repo, "owned"), "default")
			if !tc.force {
				if !strings.Contains(logs, conflict) {
					t.Errorf("logs lack %q:\n%s", conflict, logs)
				}
				if st == nil || st.Result != status.RoleFailed || !strings.Contains(st.Message, conflict) {
					t.Errorf("status of role default: %+v, want failed with %q", st, conflict)
				}
			}
			cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "owned-settings", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := cm.Data["level"]; got != tc.wantLevel {
				t.Errorf("level = %s, want %s", got, tc.wantLevel)
			}
			if tc.force {
				if diff := cmp.Diff([]string{"roleout/owned"}, levelOwners(cm.ManagedFields)); diff != "" {
					t.Errorf("managers of .data.level after a forced apply (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// levelOwners returns the field managers that own .data.level.
func levelOwners(fields []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, f := range fields {
		if f.FieldsV1 != nil && strings.Contains(string(f.FieldsV1.Raw), `"f:level"`) {
			out = append(out, f.Manager)
		}
	}
	return out
}
