package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// TestRunRendersHelmChartsInProcess: an app whose overlay inflates a chart
// of the repository with kustomize's helmCharts rolls out with
// render.enableHelm, through roleout's own Helm (a helm program on PATH
// fails when run), from a real git server to the
// real control plane: the chart's Deployment has the values the overlay
// set. Without enableHelm the same app fails, names the setting and
// applies nothing.
func TestRunRendersHelmChartsInProcess(t *testing.T) {
	testcluster.Require(t, cluster)
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	// A helm program that fails: roleout must never run one.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "helm"), []byte("#!/bin/sh\necho the helm program was run >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "charts")
	if _, err := repo.CommitDir("main", "a chart and an overlay that inflates it", "../../render/testdata/helm", ""); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	off := writeConfig(t, repo.URL(), "- {name: helm-off, path: apps/prod, namespace: default}\n")
	code, _, logs := cli("run", "--once", "--config", off)
	if code != exitError || !strings.Contains(logs, "render.enableHelm") {
		t.Errorf("helm off: exit %d, want %d with an error naming render.enableHelm:\n%s", code, exitError, logs)
	}
	if _, err := cs.AppsV1().Deployments("default").Get(ctx, "prod-web", metav1.GetOptions{}); err == nil {
		t.Fatal("helm off applied the chart's Deployment")
	}

	on := writeConfig(t, repo.URL(), "- {name: helm-on, path: apps/prod, namespace: default, render: {enableHelm: true}}\n")
	code, summary, logs := cli("run", "--once", "--config", on)
	if code != exitOK {
		t.Fatalf("helm on: exit %d:\n%s", code, logs)
	}
	t.Logf("%s", summary)
	d, err := cs.AppsV1().Deployments("default").Get(ctx, "prod-web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the chart's Deployment: %v", err)
	}
	c := d.Spec.Template.Spec.Containers
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 || len(c) != 1 || c[0].Image != "registry.example.com/web:3.1" {
		t.Errorf("Deployment prod-web: replicas %v, containers %+v; want 2 replicas of registry.example.com/web:3.1 (values-prod.yaml)", d.Spec.Replicas, c)
	}
	if d.Labels["helm.sh/chart"] != "web-1.2.3" || d.Labels["roleout.dev/app"] != "helm-on" {
		t.Errorf("Deployment prod-web labels %v: want the chart's and roleout's", d.Labels)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "prod-web", metav1.GetOptions{}); err != nil {
		t.Errorf("the chart's ConfigMap: %v", err)
	}
	if st := readStatus(t, repo, "helm-on"); st.Phase != "Succeeded" {
		t.Errorf("status phase %s: %s", st.Phase, st.Message)
	}
}
