package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// controlSetup serves threeWaves at tag v1 as app ns (with the app's
// fields in extra, such as ", prune: true") and starts roleout run on it
// with schedule; it returns once v1 is rolled out.
func controlSetup(t *testing.T, ns, schedule string, extra ...string) (repo *testgit.Repo, config string, out *syncBuffer) {
	t.Helper()
	testcluster.Require(t, cluster)
	repo = testgit.New(t, testgit.Options{}).MustRepo(t, ns)
	head, err := repo.Commit("main", "v1", threeWaves(ns, "v1"))
	if err != nil {
		t.Fatal(err)
	}
	config = writeConfig(t, repo.URL(), "- {name: "+ns+", path: apps/three, timeout: 30s"+strings.Join(extra, "")+"}\nschedule: "+schedule+"\nhttp: {address: \"-\"}\n")
	out = &syncBuffer{}
	cmd := startRoleout(t, out, "run", "--config", config)
	t.Cleanup(sync.OnceFunc(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }))
	if !waitForStatus(t, repo, ns, 2*time.Minute, succeededAt(head)) {
		t.Fatalf("the first rollout did not succeed:\n%s", out.String())
	}
	return repo, config, out
}

// controlCLI runs roleout verb on app with --output json and returns
// what it printed.
func controlCLI(t *testing.T, verb, config, app string, extra ...string) control.App {
	t.Helper()
	code, stdout, stderr := cli(append([]string{verb, "--config", config, "--app", app, "--output", "json"}, extra...)...)
	if code != exitOK {
		t.Fatalf("roleout %s: exit %d: %s", verb, code, stderr)
	}
	var c control.App
	if err := json.Unmarshal([]byte(stdout), &c); err != nil {
		t.Fatalf("roleout %s printed %q: %v", verb, stdout, err)
	}
	return c
}

// images returns the images of Deployments a, b and c in ns.
func images(t *testing.T, ns string) []string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range []string{"a", "b", "c"} {
		d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d.Spec.Template.Spec.Containers[0].Image)
	}
	return out
}

// TestSuspendResume suspends an app while roleout run runs: its status
// becomes Suspended (naming who suspended it) without a new commit, a new
// commit is planned and not applied; resumed, the app rolls it out.
func TestSuspendResume(t *testing.T) {
	t.Parallel()
	const ns = "control-suspend"
	repo, config, out := controlSetup(t, ns, "{interval: 2s}")
	c := controlCLI(t, "suspend", config, ns)
	if !c.Suspended || c.SuspendedBy == "" || c.SuspendedAt == "" {
		t.Fatalf("suspend printed %+v, want suspended with who and when", c)
	}
	suspended := func(head string) func(*status.App) bool {
		return func(st *status.App) bool {
			return st.Phase == status.PhaseSuspended && st.SourceRevision == "main@sha1:"+head && strings.Contains(st.Message, "suspended by "+c.SuspendedBy)
		}
	}
	old, err := repo.Rev("refs/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if !waitForStatus(t, repo, ns, time.Minute, suspended(old)) {
		t.Fatalf("the status did not become Suspended:\n%s", out.String())
	}
	head, err := repo.Commit("main", "v2", threeWaves(ns, "v2"))
	if err != nil {
		t.Fatal(err)
	}
	if !waitForStatus(t, repo, ns, time.Minute, suspended(head)) {
		t.Fatalf("the new commit was not recorded Suspended:\n%s", out.String())
	}
	time.Sleep(3 * time.Second) // another poll or two
	for _, img := range images(t, ns) {
		if !strings.HasSuffix(img, ":v1") {
			t.Fatalf("suspended, the cluster runs %s; want v1 everywhere", img)
		}
	}

	if c := controlCLI(t, "resume", config, ns, "--namespace", "default"); c.Suspended {
		t.Fatalf("resume printed %+v", c)
	}
	if !waitForStatus(t, repo, ns, 2*time.Minute, succeededAt(head)) {
		t.Fatalf("resumed, v2 was not rolled out:\n%s", out.String())
	}
	checkConverged(t, repo, ns, ns, "v2")
	if c := controlCLI(t, "suspend", config, ns); !c.Suspended {
		t.Fatalf("suspend again: %+v", c)
	}
	if c := controlCLI(t, "resume", config, ns); c.Suspended || c.SuspendedBy != "" {
		t.Fatalf("resume printed %+v", c)
	}
}

// TestControlCommandErrors: an app not in the config, and a user without
// the right to write the control ConfigMap, exit 2 with what is wrong.
func TestControlCommandErrors(t *testing.T) {
	t.Parallel()
	c := testcluster.Require(t, cluster)
	config := writeConfig(t, "https://git.example/config.git", "- {name: control-errors, path: apps/web}\n")
	if code, _, stderr := cli("suspend", "--config", config, "--app", "nope"); code != exitError || !strings.Contains(stderr, `app "nope" is not in the config`) {
		t.Errorf("unknown app: exit %d, %q", code, stderr)
	}
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	limited := filepath.Join(t.TempDir(), "limited.yaml")
	sa := asServiceAccount(t, c.Kubeconfig, "default", "nobody")
	if err := os.WriteFile(limited, []byte(strings.Replace(string(data), cluster.Kubeconfig, sa, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"suspend", "resume", "reconcile"} {
		code, _, stderr := cli(verb, "--config", limited, "--app", "control-errors")
		if code != exitError || !strings.Contains(stderr, "forbidden") || !strings.Contains(stderr, "needs get and update on configmaps named roleout-control in namespace default") {
			t.Errorf("%s without RBAC: exit %d, %q", verb, code, stderr)
		}
	}
	// The Role examples/deploy gives operators is enough.
	bindExampleControlRole(t, "default", "nobody")
	for _, verb := range []string{"suspend", "reconcile", "resume"} {
		code, stdout, stderr := cli(verb, "--config", limited, "--app", "control-errors")
		// The authorizer sees the new binding within moments.
		for deadline := time.Now().Add(10 * time.Second); code != exitOK && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			code, stdout, stderr = cli(verb, "--config", limited, "--app", "control-errors")
		}
		if code != exitOK || !strings.Contains(stdout, "(ConfigMap default/roleout-control)") {
			t.Errorf("%s with the example's Role: exit %d, %q %q", verb, code, stdout, stderr)
		}
	}
}

// bindExampleControlRole creates the Role roleout-control of
// examples/deploy/rbac.yaml in ns and binds it to service account ns/sa.
func bindExampleControlRole(t *testing.T, ns, sa string) {
	t.Helper()
	data, err := os.ReadFile("../../examples/deploy/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var role *rbacv1.Role
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var r rbacv1.Role
		if err := yaml.Unmarshal([]byte(doc), &r); err == nil && r.Kind == "Role" && r.Name == control.ConfigMapName {
			role = &r
		}
	}
	if role == nil {
		t.Fatal("examples/deploy/rbac.yaml has no Role roleout-control")
	}
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	role.Namespace = ns
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: ns}}}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().RoleBindings(ns).Delete(ctx, role.Name, metav1.DeleteOptions{})
		_ = cs.RbacV1().Roles(ns).Delete(ctx, role.Name, metav1.DeleteOptions{})
	})
}

// TestReconcileCommand: with a schedule of an hour, roleout reconcile
// makes the running agent roll out a new commit at once.
func TestReconcileCommand(t *testing.T) {
	t.Parallel()
	const ns = "control-reconcile"
	repo, config, out := controlSetup(t, ns, "{interval: 1h}")
	head, err := repo.Commit("main", "v2", threeWaves(ns, "v2"))
	if err != nil {
		t.Fatal(err)
	}
	c := controlCLI(t, "reconcile", config, ns)
	if at, err := time.Parse(time.RFC3339, c.RequestedAt); err != nil || time.Since(at) > time.Minute || c.Suspended {
		t.Fatalf("reconcile printed %+v", c)
	}
	if !waitForStatus(t, repo, ns, time.Minute, succeededAt(head)) {
		t.Fatalf("reconcile did not roll out the new commit:\n%s", out.String())
	}
	waitForLog(t, out, "reconcile requested: polling now")
	checkConverged(t, repo, ns, ns, "v2")
}
