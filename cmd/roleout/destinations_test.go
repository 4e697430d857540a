package main

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// confinedCM is a ConfigMap of the confined app, in its namespace unless
// ns names another.
func confinedCM(name, ns, v string) string {
	meta := "{name: " + name + "}"
	if ns != "" {
		meta = "{name: " + name + ", namespace: " + ns + "}"
	}
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: " + meta + "\ndata: {v: \"" + v + "\"}\n"
}

// TestDestinationsRefused: a commit with one object in a namespace the
// app may not use, then one with a cluster-scoped kind it does not list,
// is refused whole: run, plan and diff fail naming the object and the
// field, the status says so, and nothing of the commit reaches the
// cluster (its change to an allowed object is not applied, an object it
// drops is not pruned). Listing the kind as the error says lets it roll
// out.
func TestDestinationsRefused(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "confined")
	commit := func(t *testing.T, msg string, files map[string]string) {
		t.Helper()
		if _, err := repo.Commit("main", msg, files); err != nil {
			t.Fatal(err)
		}
	}
	commit(t, "install", map[string]string{
		"apps/confined/kustomization.yaml": "resources: [namespace.yaml, settings.yaml, old.yaml]\n",
		"apps/confined/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata: {name: confined}\n",
		"apps/confined/settings.yaml":      confinedCM("settings", "", "1"),
		"apps/confined/old.yaml":           confinedCM("old", "", "1"),
	})
	app := "- {name: confined, path: apps/confined, namespace: confined, prune: true"
	config := writeConfig(t, repo.URL(), app+"}\n")
	runApp(t, config, exitOK)

	unchanged := func(t *testing.T) {
		t.Helper()
		cm, err := cs.CoreV1().ConfigMaps("confined").Get(ctx, "settings", metav1.GetOptions{})
		if err != nil || cm.Data["v"] != "1" {
			t.Errorf("settings = %v (%v), want v=1: the refused commit's change was applied", cm.Data, err)
		}
		if _, err := cs.CoreV1().ConfigMaps("confined").Get(ctx, "old", metav1.GetOptions{}); err != nil {
			t.Errorf("ConfigMap confined/old: %v; a refused commit pruned it", err)
		}
	}
	refused := []struct {
		name  string
		extra map[string]string
		gone  func() error // the refused object, expected absent
		want  string
	}{
		{"a namespace outside the allowed list",
			map[string]string{"apps/confined/extra.yaml": confinedCM("stray", "kube-system", "x")},
			func() error {
				_, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "stray", metav1.GetOptions{})
				return err
			},
			"ConfigMap/kube-system/stray: namespace kube-system is not allowed for app confined (apps[0].allowedNamespaces unset: " +
				"the app's namespace and the Namespaces it declares, [confined]); declare the Namespace in the app, or list it"},
		{"a cluster-scoped kind not listed",
			map[string]string{"apps/confined/extra.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: confined-reader}\nrules: []\n"},
			func() error {
				_, err := cs.RbacV1().ClusterRoles().Get(ctx, "confined-reader", metav1.GetOptions{})
				return err
			},
			"ClusterRole/confined-reader: cluster-scoped kind ClusterRole.rbac.authorization.k8s.io is not allowed for app confined " +
				"(apps[0].allowedKinds unset: every namespaced kind, and Namespace); to allow it, set apps[0].allowedKinds"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				"apps/confined/kustomization.yaml": "resources: [namespace.yaml, settings.yaml, extra.yaml]\n",
				"apps/confined/settings.yaml":      confinedCM("settings", "", "2"),
			}
			for k, v := range tc.extra {
				files[k] = v
			}
			commit(t, tc.name, files)
			logs := runApp(t, config, exitError)
			if !strings.Contains(logs, tc.want) {
				t.Errorf("logs lack %q:\n%s", tc.want, logs)
			}
			if st := readStatus(t, repo, "confined"); st.Phase != status.PhaseFailed || !strings.Contains(st.Message, tc.want) {
				t.Errorf("status %s %q, want Failed naming %q", st.Phase, st.Message, tc.want)
			}
			if err := tc.gone(); !apierrors.IsNotFound(err) {
				t.Errorf("the refused object: %v, want not found", err)
			}
			unchanged(t)
			for _, cmd := range []string{"plan", "diff"} {
				code, _, errOut := cli(cmd, "--config", config, "--app", "confined")
				if code != exitError || !strings.Contains(errOut, tc.want) {
					t.Errorf("%s --config: exit %d, stderr %q; want %d naming %q", cmd, code, errOut, exitError, tc.want)
				}
			}
			unchanged(t)
		})
	}

	t.Run("listed as the error says, it rolls out", func(t *testing.T) {
		kinds := `, allowedKinds: [{group: "", kind: Namespace}, {group: "", kind: ConfigMap}, {group: rbac.authorization.k8s.io, kind: ClusterRole}]}` + "\n"
		runApp(t, writeConfig(t, repo.URL(), app+kinds), exitOK)
		if _, err := cs.RbacV1().ClusterRoles().Get(ctx, "confined-reader", metav1.GetOptions{}); err != nil {
			t.Errorf("ClusterRole confined-reader: %v", err)
		}
		if cm, err := cs.CoreV1().ConfigMaps("confined").Get(ctx, "settings", metav1.GetOptions{}); err != nil || cm.Data["v"] != "2" {
			t.Errorf("settings = %v (%v), want v=2", cm.Data, err)
		}
		if _, err := cs.CoreV1().ConfigMaps("confined").Get(ctx, "old", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("ConfigMap confined/old: %v, want pruned", err)
		}
	})
}
