package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/internal/testsops"
	"github.com/roleout/roleout/status"
)

// fluxRepo serves testdata/flux-repo (clusters/staging with Flux
// Kustomizations infrastructure and apps, apps depending on
// infrastructure, with postBuild variables and SOPS decryption) with
// apps/staging/secret.enc.yaml encrypted by the sops program for key, and
// returns the repository and its head.
func fluxRepo(t *testing.T, key testsops.Key, password string) (*testgit.Repo, string) {
	t.Helper()
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "fleet")
	files := fixtureFiles(t, "testdata/flux-repo")
	plain := strings.ReplaceAll(files["apps/staging/secret.yaml.plain"], "PLAINTEXT_PASSWORD", password)
	delete(files, "apps/staging/secret.yaml.plain")
	files["apps/staging/secret.enc.yaml"] = string(testsops.EncryptSecret(t, key.Recipient, plain))
	head, err := repo.Commit("main", "fleet", files)
	if err != nil {
		t.Fatal(err)
	}
	return repo, head
}

// fixtureFiles reads a fixture tree as slash path → content.
func fixtureFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFluxRepositoryFromInitToRollout: a repository kept as Flux's guide
// keeps one, with no edit: roleout init reads its Flux Kustomizations into
// apps (path, prune, timeout, dependsOn, postBuild variables, decryption
// from the sops-age Secret) and leaves out Flux's own; roleout run --once
// then rolls infrastructure out first (its CRD serves the apps' custom
// resource), substitutes ${cluster_name} and ${replicas}, and decrypts
// the SOPS Secret, whose plaintext reaches the cluster and nothing else:
// not the status branch, not the log. A pull request that re-encrypts the
// Secret with another value gets a preview that names the Secret's
// changed key, masked.
func TestFluxRepositoryFromInitToRollout(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(cluster.Config)
	key := testsops.NewKey(t)
	// What a Flux user has made once: the age key in flux-system.
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "flux-system"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Secrets("flux-system").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sops-age"},
		Data: map[string][]byte{"age.agekey": []byte(key.Identity)}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const password = "correct-horse-battery-staple"
	repo, head := fluxRepo(t, key, password)

	res := runInit(t, repo.URL())
	apps := res.byName
	infra, web := apps["infrastructure"], apps["apps"]
	if len(res.Apps) != 2 || infra.Path != "infrastructure" || web.Path != "apps/staging" {
		t.Fatalf("apps: %+v; want infrastructure and apps from the Flux Kustomizations", res.Apps)
	}
	if !slices.Equal(web.DependsOn, []string{"infrastructure"}) || web.Substitute["cluster_name"] != "staging" ||
		web.Decryption == nil || web.Decryption.KeySecret == nil || web.Decryption.KeySecret.Name != "sops-age" || !web.Prune || infra.Timeout != "2m" {
		t.Errorf("apps carried over: %+v", web)
	}
	if !slices.ContainsFunc(res.Untranslated, func(s string) bool { return strings.Contains(s, "Kustomization flux-system/flux-system") }) {
		t.Errorf("untranslated %v does not name Flux's own Kustomization", res.Untranslated)
	}

	res.Config = strings.Replace(res.Config, "source:\n", "source:\n  pullRequests: {refs: [\"refs/pull/*/head\"]}\n", 1)
	cfg := writeInitConfig(t, res, "http: {address: \"-\"}\n")
	code, stdout, logs := cli("run", "--once", "--config", cfg)
	if code != exitOK {
		t.Fatalf("run --once: exit %d:\n%s\n%s", code, stdout, logs)
	}
	for _, app := range []string{"infrastructure", "apps"} {
		if st := readStatus(t, repo, app); st.Phase != status.PhaseSucceeded || st.SourceRevision != "main@sha1:"+head {
			t.Errorf("%s: %s %q", app, st.Phase, st.Message)
		}
	}
	s, err := cs.CoreV1().Secrets("web-staging").Get(ctx, "db", metav1.GetOptions{})
	if err != nil || string(s.Data["password"]) != password {
		t.Fatalf("Secret web-staging/db: %v; password %q", err, s.Data["password"])
	}
	d, err := cs.AppsV1().Deployments("web-staging").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || *d.Spec.Replicas != 2 || d.Spec.Template.Spec.Containers[0].Env[0].Value != "staging" {
		t.Fatalf("Deployment web-staging/web: %v %+v", err, d)
	}
	if hits, _ := repo.Grep("roleout/status", password); len(hits) > 0 {
		t.Errorf("the status branch holds the plaintext: %v", hits)
	}
	if strings.Contains(logs, password) {
		t.Error("the log holds the plaintext")
	}

	// A pull request re-encrypts the Secret with another value.
	changed := testsops.EncryptSecret(t, key.Recipient, strings.ReplaceAll(fixtureFiles(t, "testdata/flux-repo")["apps/staging/secret.yaml.plain"], "PLAINTEXT_PASSWORD", "new-"+password))
	if err := repo.SetRef("refs/heads/pr-1", head); err != nil {
		t.Fatal(err)
	}
	pr, err := repo.Commit("pr-1", "rotate the password", map[string]string{"apps/staging/secret.enc.yaml": string(changed)})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.PullRequest(1, pr); err != nil {
		t.Fatal(err)
	}
	if code, _, logs = cli("run", "--once", "--config", cfg); code != exitOK {
		t.Fatalf("run --once with a pull request: exit %d:\n%s", code, logs)
	}
	preview, err := repo.Show("roleout/status", "apps/previews/pull-1-head.md")
	if err != nil {
		t.Fatalf("no preview of the pull request: %v", err)
	}
	if !strings.Contains(preview, "Secret/web-staging/db") || !strings.Contains(preview, "masked:sops-") {
		t.Errorf("the preview does not show the Secret's change, masked:\n%s", preview)
	}
	if hits, _ := repo.Grep("roleout/status", password); len(hits) > 0 || strings.Contains(logs, password) {
		t.Errorf("a plaintext leaked after the preview: %v", hits)
	}
}
