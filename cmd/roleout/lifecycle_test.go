package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// shopFile reads a file of the shop fixture.
func shopFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/shop", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestLifecycle drives the shop app (a CRD, three waves, a Secret and a
// custom resource) through install, diff (exit 0, 1 and 2), prune,
// upgrade, rollback, a broken render and a wave that never gets healthy,
// against the test cluster.
func TestLifecycle(t *testing.T) {
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "shop")
	if _, err := repo.CommitDir("main", "shop", "testdata/shop", "apps/shop"); err != nil {
		t.Fatal(err)
	}
	// The shop ships a CRD (cluster-scoped), so it lists the kinds it uses.
	config := writeConfig(t, repo.URL(), "- {name: shop, path: apps/shop, prune: true, timeout: 8s, allowedKinds: "+shopKinds+"}\n")
	commit := func(t *testing.T, msg string, files map[string]string) {
		t.Helper()
		if _, err := repo.Commit("main", msg, files); err != nil {
			t.Fatal(err)
		}
	}
	var allOutput strings.Builder
	runOnce := func(t *testing.T, wantCode int) string {
		t.Helper()
		code, summary, logs := cli("run", "--once", "--config", config)
		allOutput.WriteString(summary + logs)
		if code != wantCode {
			t.Fatalf("run --once exit %d, want %d:\n%s", code, wantCode, logs)
		}
		return logs
	}
	runDiff := func(t *testing.T, wantCode int, extra ...string) string {
		t.Helper()
		code, out, errOut := cli(append([]string{"diff", "--config", config, "--app", "shop"}, extra...)...)
		allOutput.WriteString(out + errOut)
		if code != wantCode {
			t.Fatalf("diff %v exit %d, want %d:\n%s\n%s", extra, code, wantCode, out, errOut)
		}
		return out
	}

	t.Run("diff before install", func(t *testing.T) {
		out := runDiff(t, exitChanges)
		for _, want := range []string{"create Namespace/shop", "create (CRD pending) Widget/shop/api-widget", "create (namespace pending) Secret/shop/db-creds (role db)", "total"} {
			if !strings.Contains(out, want) {
				t.Errorf("diff lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "Tr0ub4dor") {
			t.Errorf("diff shows the Secret's value:\n%s", out)
		}
	})

	t.Run("install across three waves with a CRD and its CR", func(t *testing.T) {
		since := len(roleoutWritesLog(t))
		runOnce(t, exitOK)
		want := []string{"prerequisites", "db", "api", "front"}
		if diff := cmp.Diff(want, shopWriteOrder(t, since)); diff != "" {
			t.Errorf("order of roleout's writes to the shop objects (-want +got):\n%s", diff)
		}
		if got := widgetSize(t); got != 3 {
			t.Errorf("Widget api-widget spec.size = %d, want 3", got)
		}
		if out := runDiff(t, exitOK); !strings.Contains(out, "no changes") {
			t.Errorf("diff right after the rollout:\n%s", out)
		}
		if out := runDiff(t, exitOK, "--offline"); !strings.Contains(out, "no changes") {
			t.Errorf("offline diff right after the rollout:\n%s", out)
		}
	})

	t.Run("offline diff sees prerequisite and role changes", func(t *testing.T) {
		// Nothing is reconciled here: each commit is diffed against the
		// status of the install, and the last one puts the shop back.
		commit(t, "label the namespace", map[string]string{
			"apps/shop/namespace.yaml": shopFile(t, "namespace.yaml") + "  labels: {team: shop}\n",
		})
		out := runDiff(t, exitChanges, "--offline")
		for _, want := range []string{"update Namespace/shop (prerequisites)", "update CustomResourceDefinition/widgets.example.com (prerequisites)",
			"prerequisites: the status records only this step's hash"} {
			if !strings.Contains(out, want) {
				t.Errorf("offline diff of a labelled namespace lacks %q:\n%s", want, out)
			}
		}
		cache := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  annotations: {roleout.dev/role: cache, roleout.dev/upgrade-order: \"4\"}\ndata: {size: \"1\"}\n"
		kustomization := strings.Replace(shopFile(t, "kustomization.yaml"), "- front.yaml\n", "- cache.yaml\n", 1)
		commit(t, "no front, a cache role", map[string]string{
			"apps/shop/namespace.yaml": shopFile(t, "namespace.yaml"), "apps/shop/kustomization.yaml": kustomization, "apps/shop/cache.yaml": cache,
		})
		out = runDiff(t, exitChanges, "--offline")
		for _, want := range []string{"role front removed", "delete Deployment/shop/front (role front)", "delete ConfigMap/shop/front-config (role front)",
			"role cache added", "create ConfigMap/shop/cache (role cache)", "role front (removed)", "role cache (added)"} {
			if !strings.Contains(out, want) {
				t.Errorf("offline diff without front, with cache lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "(prerequisites)") {
			t.Errorf("offline diff shows the unchanged prerequisites as changed:\n%s", out)
		}
		out = runDiff(t, exitChanges, "--offline", "--output", "json")
		var rep diff.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("offline diff --output json: %v\n%s", err, out)
		}
		steps := map[string]diff.Step{}
		for _, s := range rep.Steps {
			steps[s.Role] = s
		}
		if !rep.Changed || steps["front"].Change != diff.RoleRemoved || steps["front"].Counts.Delete != 3 || steps["cache"].Change != diff.RoleAdded {
			t.Errorf("offline diff JSON: changed %v, front %+v, cache %+v", rep.Changed, steps["front"], steps["cache"])
		}
		commit(t, "the shop as installed", map[string]string{"apps/shop/kustomization.yaml": shopFile(t, "kustomization.yaml")})
		if out := runDiff(t, exitOK, "--offline"); !strings.Contains(out, "no changes") {
			t.Errorf("offline diff of the installed shop again:\n%s", out)
		}
	})

	t.Run("diff exits 2 on an error", func(t *testing.T) {
		tests := []struct {
			name    string
			args    []string
			wantErr string
		}{
			{"an unreachable cluster", []string{"--app", "shop", "--kubeconfig", unreachableKubeconfig(t)}, "connection refused"},
			{"an unknown app", []string{"--app", "nope"}, "nope"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				code, out, errOut := cli(append([]string{"diff", "--config", config}, tc.args...)...)
				allOutput.WriteString(out + errOut)
				if code != exitError || !strings.Contains(errOut, tc.wantErr) {
					t.Errorf("diff exit %d, stderr %q; want %d and %q", code, errOut, exitError, tc.wantErr)
				}
				if n := strings.Count(errOut, tc.wantErr); n != 1 {
					t.Errorf("diff says %q %d times; want one error, not one per object:\n%s", tc.wantErr, n, errOut)
				}
				t.Logf("diff %s: %s", tc.name, errOut)
			})
		}
	})

	t.Run("a changed Secret and a removed object", func(t *testing.T) {
		foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "foreign", Namespace: "shop"}}
		if _, err := cs.CoreV1().ConfigMaps("shop").Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// front-legacy is in the inventory, but someone gave it to another
		// app: when it leaves git it is not roleout's to delete.
		relabel := []byte(`{"metadata":{"labels":{"roleout.dev/app":"someone-else"}}}`)
		if _, err := cs.CoreV1().ConfigMaps("shop").Patch(ctx, "front-legacy", types.MergePatchType, relabel, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		front := shopFile(t, "front.yaml")
		commit(t, "new password, no front-config, no front-legacy", map[string]string{
			"apps/shop/db.yaml":    strings.Replace(shopFile(t, "db.yaml"), "Tr0ub4dor-first", "Tr0ub4dor-second", 1),
			"apps/shop/front.yaml": front[:strings.Index(front, "---")],
		})
		for _, offline := range [][]string{nil, {"--offline"}} {
			out := runDiff(t, exitChanges, offline...)
			for _, want := range []string{"update Secret/shop/db-creds", "password: masked:hmac-sha256:"} {
				if !strings.Contains(out, want) {
					t.Errorf("diff %v lacks %q:\n%s", offline, want, out)
				}
			}
			if strings.Contains(out, "Tr0ub4dor") {
				t.Errorf("diff %v shows the Secret's value:\n%s", offline, out)
			}
		}
		out := runDiff(t, exitChanges)
		if !strings.Contains(out, "delete ConfigMap/shop/front-config") || strings.Contains(out, "front-legacy") {
			t.Errorf("diff does not announce the prune of front-config alone:\n%s", out)
		}
		logs := runOnce(t, exitOK)
		if !strings.Contains(logs, "prune skipped: not labelled roleout.dev/app=shop") {
			t.Errorf("the logs do not say why front-legacy was not pruned:\n%s", logs)
		}
		if _, err := cs.CoreV1().ConfigMaps("shop").Get(ctx, "front-config", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("front-config left git but is still there: %v", err)
		}
		for _, name := range []string{"foreign", "front-legacy"} {
			if _, err := cs.CoreV1().ConfigMaps("shop").Get(ctx, name, metav1.GetOptions{}); err != nil {
				t.Errorf("ConfigMap %s does not carry roleout.dev/app=shop but was deleted: %v", name, err)
			}
		}
	})

	t.Run("upgrade and rollback reuse the old ReplicaSet and restore the custom resource", func(t *testing.T) {
		first := apiReplicaSet(t, cs)
		api := strings.Replace(shopFile(t, "api.yaml"), "api:1.0", "api:2.0", 1)
		commit(t, "api 2.0, a bigger widget", map[string]string{"apps/shop/api.yaml": strings.Replace(api, "size: 3", "size: 5", 1)})
		runOnce(t, exitOK)
		if second := apiReplicaSet(t, cs); second == first {
			t.Fatalf("api 2.0 kept ReplicaSet %s", first)
		}
		if got := widgetSize(t); got != 5 {
			t.Errorf("after the upgrade Widget api-widget spec.size = %d, want 5", got)
		}
		revs := roleRevisions(t, config, "api")
		rev1, rev2 := revs[1], revs[2]
		code, _, logs := rollbackOnce(t, config, "--app", "shop", "--role", "api", "--to-revision", "1")
		allOutput.WriteString(logs)
		if code != exitOK {
			t.Fatalf("rollback exit %d:\n%s", code, logs)
		}
		if back := apiReplicaSet(t, cs); back != first {
			t.Errorf("after rollback the current ReplicaSet is %s, want the first one %s", back, first)
		}
		list, err := cs.AppsV1().ReplicaSets("shop").List(ctx, metav1.ListOptions{LabelSelector: "app=api"})
		if err != nil || len(list.Items) != 2 {
			t.Errorf("api ReplicaSets = %d (%v), want 2: the old one reused, no third", len(list.Items), err)
		}
		if got := widgetSize(t); got != 3 {
			t.Errorf("after the rollback Widget api-widget spec.size = %d, want 3", got)
		}
		// Revision 1's template becomes revision 3 (max+1), in status and in
		// history.
		if st := statusRole(readStatus(t, repo, "shop"), "api"); st == nil || st.RevisionNumber != 3 || st.RevisionName != rev1 {
			t.Errorf("status of role api after the rollback: %+v, want revision 3 named %s", st, rev1)
		}
		if diff := cmp.Diff(map[int64]string{2: rev2, 3: rev1}, roleRevisions(t, config, "api")); diff != "" {
			t.Errorf("api revisions in history (-want +got):\n%s", diff)
		}
		if got := lastRollout(t, config, "api"); got != "rollback api rev 3 "+rev1+" rollback" {
			t.Errorf("last rollout in history: %q, want the rollback of api to rev 3", got)
		}
	})

	t.Run("a broken render applies and prunes nothing", func(t *testing.T) {
		// One commit takes front out of the overlay and breaks the render:
		// front stays.
		commit(t, "broken, and no front", map[string]string{"apps/shop/kustomization.yaml": strings.Replace(shopFile(t, "kustomization.yaml"), "- front.yaml", "- missing.yaml", 1)})
		logs := runOnce(t, exitError)
		if !strings.Contains(logs, "missing.yaml") {
			t.Errorf("the error does not name the missing file:\n%s", logs)
		}
		if _, err := cs.AppsV1().Deployments("shop").Get(ctx, "front", metav1.GetOptions{}); err != nil {
			t.Errorf("front was deleted after a render error: %v", err)
		}
		code, out, errOut := cli("diff", "--config", config, "--app", "shop")
		allOutput.WriteString(out + errOut)
		if code != exitError || !strings.Contains(errOut, "missing.yaml") {
			t.Errorf("diff of a broken overlay: exit %d, stderr %q; want %d naming missing.yaml", code, errOut, exitError)
		}
		t.Logf("diff of a broken overlay: %s", errOut)
	})

	t.Run("no Secret value in anything roleout wrote", func(t *testing.T) {
		revisions := clusterRevisionsJSON(t, cs)
		for _, plain := range []string{"Tr0ub4dor-first", "Tr0ub4dor-second"} {
			for _, secret := range []string{plain, base64.StdEncoding.EncodeToString([]byte(plain))} {
				if strings.Contains(allOutput.String(), secret) {
					t.Errorf("a log, summary or diff shows %q", secret)
				}
				hits, err := repo.Grep("roleout/status", secret)
				if err != nil || len(hits) > 0 {
					t.Errorf("the status branch holds %q: %v %v", secret, hits, err)
				}
				if strings.Contains(revisions, secret) {
					t.Errorf("the role revisions roleout keeps in the cluster hold %q", secret)
				}
			}
		}
		if hits, _ := repo.Grep("roleout/status", "masked:hmac-sha256:"); len(hits) == 0 {
			t.Error("the recorded revisions hold no masked Secret values at all: is the Secret recorded?")
		}
	})

	t.Run("an unhealthy wave stops the later waves", func(t *testing.T) {
		front := shopFile(t, "front.yaml")
		commit(t, "db cannot schedule, front grows", map[string]string{
			"apps/shop/kustomization.yaml": shopFile(t, "kustomization.yaml"),
			"apps/shop/db.yaml":            strings.Replace(shopFile(t, "db.yaml"), "      containers:", "      nodeSelector: {no-such-node: \"true\"}\n      containers:", 1),
			// front-legacy stays out: it is someone-else's now, and declaring
			// it would refuse the whole rollout (no adopt).
			"apps/shop/front.yaml": front[:strings.LastIndex(front, "---")] + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: front-new, annotations: {roleout.dev/role: front}}\n",
		})
		logs := runOnce(t, exitError)
		// The object, kstatus' message, and why: its new pod cannot be
		// scheduled. Status records the same reason for the role.
		notReady := regexp.MustCompile(`Deployment/shop/db not ready \(InProgress\): Pending termination: 1; pod db-[a-z0-9]+-[a-z0-9]+: PodScheduled=False Unschedulable: 0/2 nodes are available: 2 node\(s\) didn't match Pod's node affinity/selector\.`)
		if !notReady.MatchString(logs) {
			t.Errorf("the error does not name the unhealthy object and its condition (%s):\n%s", notReady, logs)
		}
		if st := statusRole(readStatus(t, repo, "shop"), "db"); st == nil || st.Result != status.RoleFailed || !notReady.MatchString(st.Message) {
			t.Errorf("status of role db: %+v, want failed with %s", st, notReady)
		}
		if _, err := cs.CoreV1().ConfigMaps("shop").Get(ctx, "front-new", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("a later wave's object was applied after an unhealthy wave: %v", err)
		}
	})
}

// apiReplicaSet returns the name of the api Deployment's current
// ReplicaSet.
func apiReplicaSet(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	ctx := context.Background()
	d, err := cs.AppsV1().Deployments("shop").Get(ctx, "api", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.AppsV1().ReplicaSets("shop").List(ctx, metav1.ListOptions{LabelSelector: "app=api"})
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range list.Items {
		if rs.Annotations["deployment.kubernetes.io/revision"] == d.Annotations["deployment.kubernetes.io/revision"] {
			return rs.Name
		}
	}
	t.Fatal("no current ReplicaSet for api")
	return ""
}
