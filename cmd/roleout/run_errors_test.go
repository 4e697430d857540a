package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

func TestRunOnceBadInput(t *testing.T) {
	t.Parallel()
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
	if st.Phase != status.PhaseFailed || !strings.Contains(st.Message, "missing.yaml") {
		t.Errorf("status of the broken app: phase %s, message %q; want Failed naming the missing file", st.Phase, st.Message)
	}
}

// TestFleetOneClusterDown serves two apps on two clusters: one reachable
// through its own kubeconfig, one whose cluster cannot be reached. The
// reachable one rolls out; only the other fails.
func TestFleetOneClusterDown(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "fleet")
	if _, err := repo.CommitDir("main", "web", "testdata/web", "apps/web"); err != nil {
		t.Fatal(err)
	}
	kust, _ := os.ReadFile("testdata/web/kustomization.yaml")
	if _, err := repo.Commit("main", "namespace fleet", map[string]string{
		"apps/web/kustomization.yaml": strings.Replace(string(kust), "namespace: web", "namespace: fleet", 1),
		"apps/web/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: fleet\n",
	}); err != nil {
		t.Fatal(err)
	}
	unreachable := unreachableKubeconfig(t)
	config := writeConfig(t, repo.URL(), "- {name: near, path: apps/web, kubeconfig: "+cluster.Kubeconfig+"}\n- {name: far, path: apps/web, kubeconfig: "+unreachable+"}\n")
	code, _, logs := cli("run", "--once", "--config", config)
	if code != exitError || !strings.Contains(logs, "app far") || strings.Contains(logs, "app near:") {
		t.Errorf("exit %d, want 2 with only app far failing:\n%s", code, logs)
	}
	if _, err := cs.AppsV1().Deployments("fleet").Get(context.Background(), "worker", metav1.GetOptions{}); err != nil {
		t.Errorf("app near did not roll out: %v", err)
	}
	if st := readStatus(t, repo, "near"); st.Phase != status.PhaseSucceeded {
		t.Errorf("app near: %s %s", st.Phase, st.Message)
	}
}

// webRepo serves a repository whose main branch holds testdata/web at
// apps/web, in namespace ns, so tests do not share objects.
func webRepo(t *testing.T, name, ns string) (*testgit.Repo, string) {
	t.Helper()
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, name)
	if _, err := repo.CommitDir("main", "web", "testdata/web", "apps/web"); err != nil {
		t.Fatal(err)
	}
	kust, _ := os.ReadFile("testdata/web/kustomization.yaml")
	sha, err := repo.Commit("main", "namespace "+ns, map[string]string{
		"apps/web/kustomization.yaml": strings.Replace(string(kust), "namespace: web", "namespace: "+ns, 1),
		"apps/web/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	return repo, sha
}

func TestForcePushIsRecorded(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	repo, first := webRepo(t, "forced", "forced")
	if _, err := repo.Commit("main", "worker 2", map[string]string{"apps/web/README.md": "two\n"}); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: forced, path: apps/web}\n")
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("run --once exit %d:\n%s", code, logs)
	}
	if st := readStatus(t, repo, "forced"); st.HistoryRewritten != nil {
		t.Fatalf("no force-push yet, status says %+v", st.HistoryRewritten)
	}
	before := readStatus(t, repo, "forced").SourceRevision
	rewritten, err := repo.ForcePush("main", first, "rewritten", map[string]string{"apps/web/README.md": "rewritten\n"})
	if err != nil {
		t.Fatal(err)
	}
	code, _, logs := cli("run", "--once", "--config", config)
	if code != exitOK || !strings.Contains(logs, "history rewritten") {
		t.Fatalf("run --once exit %d, want 0 with a history rewritten warning:\n%s", code, logs)
	}
	st := readStatus(t, repo, "forced")
	if st.HistoryRewritten == nil || st.HistoryRewritten.From != before || st.HistoryRewritten.To != "main@sha1:"+rewritten || st.SourceRevision != "main@sha1:"+rewritten {
		t.Errorf("status after a force-push: revision %s, rewritten %+v (was %s)", st.SourceRevision, st.HistoryRewritten, before)
	}
}

// TestCredentialsNeverLogged runs against a URL with a password in it, a
// reachable one and an unreachable one: no log line, error or status
// shows the password.
func TestCredentialsNeverLogged(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	srv := testgit.New(t, testgit.Options{Username: "git", Password: "Sup3r-Secret-pw"})
	repo := srv.MustRepo(t, "creds")
	if _, err := repo.CommitDir("main", "web", "testdata/web", "apps/web"); err != nil {
		t.Fatal(err)
	}
	withPassword := strings.Replace(repo.URL(), "http://", "http://git:Sup3r-Secret-pw@", 1)
	for _, url := range []string{withPassword, "http://git:Sup3r-Secret-pw@127.0.0.1:1/nothing.git"} {
		config := writeConfig(t, url, "- {name: creds, path: apps/nothing}\n")
		code, out, logs := cli("run", "--once", "--config", config, "--log-level", "debug")
		if code == exitOK {
			t.Errorf("%s: want a failure (the overlay does not exist)", url)
		}
		if strings.Contains(out+logs, "Sup3r-Secret-pw") {
			t.Errorf("the password shows up:\n%s\n%s", out, logs)
		}
		if strings.Contains(url, "127.0.0.1:1/") && !strings.Contains(logs, "git:redacted@") {
			t.Errorf("the fetch error does not show the redacted URL:\n%s", logs)
		}
	}
	// Credentials from files, refused by the server: the errors name the
	// files, never their content.
	dir := t.TempDir()
	files := map[string]string{"user": "git", "pass": "Wr0ng-pw-from-file", "token": "t0ken-from-file-123"}
	for name, v := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, auth := range []string{
		fmt.Sprintf("{usernameFile: %s, passwordFile: %s}", filepath.Join(dir, "user"), filepath.Join(dir, "pass")),
		fmt.Sprintf("{tokenFile: %s}", filepath.Join(dir, "token")),
	} {
		config := writeConfig(t, repo.URL(), "- {name: creds, path: apps/web}\n")
		data, _ := os.ReadFile(config)
		if err := os.WriteFile(config, []byte(strings.Replace(string(data), "branch: main}", "branch: main, auth: "+auth+"}", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, logs := cli("run", "--once", "--config", config, "--log-level", "debug")
		if code != exitError || !strings.Contains(logs, "authentication failed") || !strings.Contains(logs, dir) {
			t.Errorf("auth %s: exit %d, want an authentication error naming the file:\n%s", auth, code, logs)
		}
		for _, v := range files {
			if v != "git" && strings.Contains(out+logs, v) {
				t.Errorf("auth %s: the credential %q shows up:\n%s", auth, v, logs)
			}
		}
	}
	if hits, _ := repo.Grep("roleout/status", "Sup3r-Secret-pw"); len(hits) > 0 {
		t.Errorf("the status branch holds the password: %v", hits)
	}
	if src, _ := repo.Show("roleout/status", "creds/status.yaml"); !strings.Contains(src, "source: http://git:redacted@") {
		t.Errorf("status.yaml does not record the redacted URL:\n%s", src)
	}
}

// TestBrokenAppDoesNotBlockOthers serves two apps from one repository,
// one whose overlay does not build: the other rolls out, the broken one
// records its error and applies nothing, and the run exits 2.
func TestBrokenAppDoesNotBlockOthers(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := webRepo(t, "pair", "pair")
	if _, err := repo.Commit("main", "broken overlay", map[string]string{
		"apps/broken/kustomization.yaml": "namespace: pair-broken\nresources: [namespace.yaml, deployment.yaml]\n",
		"apps/broken/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata: {name: pair-broken}\n",
		"apps/broken/deployment.yaml":    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x\n  bad: [\n",
	}); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: broken, path: apps/broken}\n- {name: good, path: apps/web}\n")
	code, _, logs := cli("run", "--once", "--config", config)
	if code != exitError || !strings.Contains(logs, "app broken") || !strings.Contains(logs, "deployment.yaml") {
		t.Errorf("exit %d, want 2 naming app broken and its file:\n%s", code, logs)
	}
	if _, err := cs.AppsV1().Deployments("pair").Get(context.Background(), "worker", metav1.GetOptions{}); err != nil {
		t.Errorf("app good did not roll out: %v", err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(context.Background(), "pair-broken", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace pair-broken: %v; want not found: nothing of the broken app applied", err)
	}
	if st := readStatus(t, repo, "good"); st.Phase != status.PhaseSucceeded {
		t.Errorf("app good: %s %s", st.Phase, st.Message)
	}
	if st := readStatus(t, repo, "broken"); st.Phase != status.PhaseFailed || !strings.Contains(st.Message, "deployment.yaml") {
		t.Errorf("app broken: phase %s, message %q; want Failed naming the file", st.Phase, st.Message)
	}
}
