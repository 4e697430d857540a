package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// TestPullRequestPreviewsAndDryRun opens a pull request that changes one
// role: the agent commits a preview (plan, predicted restarts, diff) and
// applies nothing of it; a moved head updates the preview, a closed one
// removes it. run --dry-run writes nothing to the cluster.
func TestPullRequestPreviewsAndDryRun(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "prs")
	if _, err := repo.CommitDir("main", "web app", "testdata/web", "apps/web"); err != nil {
		t.Fatal(err)
	}
	// Its own namespace, apart from the other tests' web app.
	kust, _ := os.ReadFile("testdata/web/kustomization.yaml")
	base, err := repo.Commit("main", "namespace webpr", map[string]string{
		"apps/web/kustomization.yaml": strings.Replace(string(kust), "namespace: web", "namespace: webpr", 1),
		"apps/web/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: webpr\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	worker, err := os.ReadFile("testdata/web/worker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	openPR := func(image string) string {
		t.Helper()
		if err := repo.SetRef("refs/heads/pr/7", base); err != nil {
			t.Fatal(err)
		}
		sha, err := repo.Commit("pr/7", "worker "+image, map[string]string{"apps/web/worker.yaml": strings.Replace(string(worker), "worker:1.0", image, 1)})
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.PullRequest(7, sha); err != nil {
			t.Fatal(err)
		}
		return sha
	}
	head := openPR("worker:3.0")
	previewIdentity(t, cs, "roleout-preview", "preview")
	config := writeConfig(t, repo.URL(), "- {name: webpr, path: apps/web}\n")
	setPullRequests(t, config, "roleout-preview/preview")
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("run --once exit %d:\n%s", code, logs)
	}
	preview := func() (status.Preview, string) {
		t.Helper()
		js, err := repo.Show("roleout/status", "webpr/previews/pull-7-head.json")
		if err != nil {
			t.Fatalf("no preview: %v", err)
		}
		md, _ := repo.Show("roleout/status", "webpr/previews/pull-7-head.md")
		var p status.Preview
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			t.Fatal(err)
		}
		return p, md
	}
	p, md := preview()
	if p.Commit != head || p.Error != "" || p.Diff == nil || p.Diff.Summary.Update != 1 {
		t.Errorf("preview = commit %s (want %s), error %q, diff %+v", p.Commit, head, p.Error, p.Diff)
	}
	checkPreviewIdentity(t, p, "system:serviceaccount:roleout-preview:preview", "webpr")
	for _, w := range p.Plan.Waves {
		for _, r := range w.Roles {
			if r.Changed != (r.Name == "worker") {
				t.Errorf("preview role %s changed = %v", r.Name, r.Changed)
			}
		}
	}
	for _, want := range []string{"Merging this changes **1 role(s)**", "Deployment/worker → `ReplicaSet worker-", "**restarts pods**", "+      - image: registry.example/worker:3.0"} {
		if !strings.Contains(md, want) {
			t.Errorf("preview markdown lacks %q:\n%s", want, md)
		}
	}
	d, err := cs.AppsV1().Deployments("webpr").Get(ctx, "worker", metav1.GetOptions{})
	if err != nil || d.Spec.Template.Spec.Containers[0].Image != "registry.example/worker:1.0" {
		t.Errorf("the pull request's change reached the cluster: %v", err)
	}

	t.Run("a moved head updates the preview", func(t *testing.T) {
		moved := openPR("worker:4.0")
		if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
			t.Fatalf("run --once exit %d:\n%s", code, logs)
		}
		if p, md := preview(); p.Commit != moved || !strings.Contains(md, "worker:4.0") {
			t.Errorf("preview commit %s, want %s", p.Commit, moved)
		}
	})

	t.Run("dry run writes nothing", func(t *testing.T) {
		if _, err := repo.Commit("main", "worker 5.0", map[string]string{"apps/web/worker.yaml": strings.Replace(string(worker), "worker:1.0", "worker:5.0", 1)}); err != nil {
			t.Fatal(err)
		}
		before := roleoutWrites(t, "webpr")
		statusBefore, _ := repo.Rev("refs/heads/roleout/status")
		code, _, logs := cli("run", "--once", "--dry-run", "--config", config)
		if code != exitOK || !strings.Contains(logs, "dry run: would update") {
			t.Fatalf("run --once --dry-run exit %d:\n%s", code, logs)
		}
		if got := diffCounts(before, roleoutWrites(t, "webpr")); len(got) != 0 {
			t.Errorf("dry run wrote to the cluster: %v", got)
		}
		if after, _ := repo.Rev("refs/heads/roleout/status"); after != statusBefore {
			t.Error("dry run committed app status")
		}
	})

	t.Run("a pull request's Secret is previewed masked", func(t *testing.T) {
		const value = "pr-preview-s3cret-value"
		kustPR := strings.Replace(string(kust), "namespace: web", "namespace: webpr", 1) + "- secret.yaml\n"
		if err := repo.SetRef("refs/heads/pr/8", base); err != nil {
			t.Fatal(err)
		}
		sha, err := repo.Commit("pr/8", "a secret", map[string]string{
			"apps/web/kustomization.yaml": kustPR,
			"apps/web/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: token, annotations: {roleout.dev/role: api}}\n" +
				"stringData: {token: " + value + "}\n",
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.PullRequest(8, sha); err != nil {
			t.Fatal(err)
		}
		code, out, logs := cli("run", "--once", "--config", config)
		if code != exitOK {
			t.Fatalf("run --once exit %d:\n%s", code, logs)
		}
		md, err := repo.Show("roleout/status", "webpr/previews/pull-8-head.md")
		if err != nil || !strings.Contains(md, "Secret") || !strings.Contains(md, "token") {
			t.Fatalf("no preview of the Secret: %v\n%s", err, md)
		}
		for _, v := range []string{value, base64.StdEncoding.EncodeToString([]byte(value))} {
			if hits, err := repo.Grep("roleout/status", v); err != nil || len(hits) > 0 {
				t.Errorf("the status branch shows the Secret value (%q) in %v (%v)", v, hits, err)
			}
			if strings.Contains(out+logs, v) {
				t.Errorf("roleout's output shows the Secret value %q", v)
			}
		}
	})

	t.Run("a pull request cannot probe a live Secret", func(t *testing.T) {
		// A Secret made outside git, whose value a pull request guesses:
		// right and wrong guesses preview alike, and nothing of the live
		// value reaches git.
		if _, err := cs.CoreV1().Secrets("webpr").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "live-token"},
			StringData: map[string]string{"token": "guess-me"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		kustPR := strings.Replace(string(kust), "namespace: web", "namespace: webpr", 1) + "- secret.yaml\n"
		changes := map[string]string{}
		for pr, guess := range map[int]string{9: "guess-me", 10: "wrong"} {
			branch := fmt.Sprintf("pr/%d", pr)
			if err := repo.SetRef("refs/heads/"+branch, base); err != nil {
				t.Fatal(err)
			}
			sha, err := repo.Commit(branch, "guess", map[string]string{
				"apps/web/kustomization.yaml": kustPR,
				"apps/web/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: live-token, annotations: {roleout.dev/role: api}}\n" +
					"stringData: {token: " + guess + "}\n",
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := repo.PullRequest(pr, sha); err != nil {
				t.Fatal(err)
			}
		}
		if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
			t.Fatalf("run --once exit %d:\n%s", code, logs)
		}
		for _, pr := range []int{9, 10} {
			js, err := repo.Show("roleout/status", fmt.Sprintf("webpr/previews/pull-%d-head.json", pr))
			if err != nil {
				t.Fatalf("no preview of pull request %d: %v", pr, err)
			}
			var p status.Preview
			if err := json.Unmarshal([]byte(js), &p); err != nil || p.Diff == nil {
				t.Fatalf("preview of pull request %d: %v %+v", pr, err, p)
			}
			for _, step := range p.Diff.Steps {
				for _, o := range step.Objects {
					if o.Object.Kind == "Secret" && o.Object.Name == "live-token" {
						changes[fmt.Sprint(pr)] = string(o.Change)
						if o.NotCompared != diff.SecretsNotRead {
							t.Errorf("pull request %d: the Secret was compared with the live one (%q, %s)", pr, o.NotCompared, o.Change)
						}
					}
				}
			}
		}
		if changes["9"] == "" || changes["9"] != changes["10"] {
			t.Errorf("a right and a wrong guess preview as %q and %q; want the same, and the Secret previewed", changes["9"], changes["10"])
		}
	})

	t.Run("a closed pull request loses its preview", func(t *testing.T) {
		if err := repo.DeleteRef("refs/pull/7/head"); err != nil {
			t.Fatal(err)
		}
		if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
			t.Fatalf("run --once exit %d:\n%s", code, logs)
		}
		if _, err := repo.Show("roleout/status", "webpr/previews/pull-7-head.json"); err == nil {
			t.Error("the preview of a closed pull request is still there")
		}
		if _, err := repo.Show("roleout/status", "webpr/previews/pull-7-head.md"); err == nil {
			t.Error("the markdown preview of a closed pull request is still there")
		}
	})
}

// previewIdentity creates the service account previews read the cluster
// as, allowed to read and dry-run (patch, create) what the web fixture
// holds. A ClusterRoleBinding keeps the test short; roleout itself keeps
// previews inside the app's namespaces.
func previewIdentity(t *testing.T, cs kubernetes.Interface, namespace, name string) {
	t.Helper()
	ctx := context.Background()
	objs := []func() error{
		func() error {
			_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: namespace + "-" + name},
				Rules: []rbacv1.PolicyRule{{APIGroups: []string{"", "apps"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch", "patch", "create"}}}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: namespace + "-" + name},
				RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: namespace + "-" + name},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: namespace, Name: name}}}, metav1.CreateOptions{})
			return err
		},
	}
	for _, create := range objs {
		if err := create(); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// checkPreviewIdentity: the preview compared its objects with the
// cluster, and every dry run that served it was made as user, inside
// namespace; the preview identity wrote nothing for real.
func checkPreviewIdentity(t *testing.T, p status.Preview, user, namespace string) {
	t.Helper()
	compared := 0
	for _, st := range p.Diff.Steps {
		for _, o := range st.Objects {
			if o.NotCompared == "" {
				compared++
			}
		}
	}
	if compared == 0 {
		t.Errorf("the preview compared no object with the cluster: %+v", p.Diff)
	}
	writes, err := cluster.Writes("")
	if err != nil {
		t.Fatal(err)
	}
	asUser := 0
	for _, w := range writes {
		if w.As != user {
			continue
		}
		asUser++
		if !w.DryRun || w.Namespace != namespace {
			t.Errorf("the preview identity made %s %s/%s/%s (dry run %v)", w.Verb, w.Resource, w.Namespace, w.Name, w.DryRun)
		}
	}
	if asUser == 0 {
		t.Errorf("no dry run was made as %s", user)
	}
}
