package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/internal/testcluster"
)

func TestRunOnceBadInput(t *testing.T) {
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	_, repo, _ := newSourceRepo(t)
	if _, err := repo.Commit("main", "broken overlay", map[string]string{
		"apps/broken/kustomization.yaml": "namespace: broken\nresources: [namespace.yaml, missing.yaml]\n",
		"apps/broken/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata: {name: broken}\n",
	}); err != nil {
		t.Fatal(err)
	}
	missingField := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(missingField, []byte("apiVersion: roleout.dev/v1alpha1\nkind: AgentConfig\nsource: {branch: main}\napps: [{name: web, path: apps/web}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		config    string
		wantErr   []string
		namespace string // must not exist afterwards: nothing applied
	}{
		{"config misses a required field", missingField, []string{"agent.yaml", "source.url: required"}, ""},
		{"overlay does not build", writeConfig(t, repo.URL(), "- {name: broken, path: apps/broken}\n"),
			[]string{"app broken", "kustomize build apps/broken", "missing.yaml"}, "broken"},
		{"unreachable repository", writeConfig(t, "http://127.0.0.1:1/nothing.git", "- {name: web, path: apps/web}\n"),
			[]string{"poll source", "fetch http://127.0.0.1:1/nothing.git", "connection refused"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cli("run", "--once", "--config", tc.config)
			t.Logf("stderr:\n%s", stderr)
			if code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr does not contain %q:\n%s", want, stderr)
				}
			}
			if tc.namespace != "" {
				_, err := cs.CoreV1().Namespaces().Get(context.Background(), tc.namespace, metav1.GetOptions{})
				if !apierrors.IsNotFound(err) {
					t.Errorf("namespace %s: %v; want not found, nothing applied", tc.namespace, err)
				}
			}
		})
	}
	st := readStatus(t, repo, "broken")
	if st.Phase != agent.PhaseFailed || !strings.Contains(st.Message, "missing.yaml") {
		t.Errorf("status of the broken app: phase %s, message %q; want Failed naming the missing file", st.Phase, st.Message)
	}
}
