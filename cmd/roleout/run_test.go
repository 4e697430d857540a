package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/status"
)

var cluster *testcluster.Cluster

func TestMain(m *testing.M) {
	// In-process commands render in children of the roleout binary make
	// build made, not of this (race-built) test binary.
	render.SandboxExecutable = os.Getenv("ROLEOUT_BINARY")
	// And they find the prediction helpers of other Kubernetes minors
	// where the binary does (make predictors: bin/predictors).
	if b := os.Getenv("ROLEOUT_BINARY"); b != "" && os.Getenv("ROLEOUT_PREDICTORS") == "" {
		os.Setenv("ROLEOUT_PREDICTORS", filepath.Join(filepath.Dir(b), "predictors"))
	}
	os.Exit(testcluster.Main(m, testcluster.DefaultOptions(), &cluster))
}

// cli runs roleout with args in-process and returns its exit code and
// output.
func cli(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// planJSON runs roleout plan with args and --output json, which must
// succeed, and returns the plan it printed.
func planJSON(t *testing.T, args ...string) model.Summary {
	t.Helper()
	code, out, errOut := cli(append(args, "--output", "json")...)
	if code != exitOK {
		t.Fatalf("roleout %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	var s model.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("roleout %s --output json: %v\n%s", strings.Join(args, " "), err, out)
	}
	return s
}

// newSourceRepo serves a repository whose main branch holds
// testdata/web at apps/web.
func newSourceRepo(t *testing.T) (*testgit.Server, *testgit.Repo, string) {
	t.Helper()
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "config")
	sha, err := repo.CommitDir("main", "web app", "testdata/web", "apps/web")
	if err != nil {
		t.Fatal(err)
	}
	return srv, repo, sha
}

// writeConfig writes an agent config for url with the given apps YAML
// list and returns its path.
func writeConfig(t *testing.T, url, apps string) string {
	t.Helper()
	cfg := fmt.Sprintf(`apiVersion: roleout.dev/v1alpha1
kind: AgentConfig
source: {url: %q, branch: main}
cacheDir: %q
kubeconfig: %q
apps:
%s`, url, t.TempDir(), cluster.Kubeconfig, apps)
	path := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readStatus(t *testing.T, repo *testgit.Repo, app string) *status.App {
	t.Helper()
	data, err := repo.Show("roleout/status", app+"/status.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var st status.App
	if err := yaml.UnmarshalStrict([]byte(data), &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// roleSummary renders status roles as "name:result:rev" in order.
func roleSummary(st *status.App) string {
	var parts []string
	for _, r := range st.Roles {
		parts = append(parts, fmt.Sprintf("%s:%s:%d", r.Name, r.Result, r.RevisionNumber))
	}
	return strings.Join(parts, " ")
}

// roleoutWrites counts the write requests roleout made to the objects
// in namespace ns and to ns itself, by resource/name (so tests running
// side by side do not count each other's); dry runs write nothing and do
// not count, nor do the Events it records or the role revisions it keeps
// in the cluster.
func roleoutWrites(t *testing.T, ns string) map[string]int {
	t.Helper()
	writes, err := cluster.Writes("roleout/")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, w := range writes {
		inNS := w.Namespace == ns || (w.Resource == "namespaces" && w.Name == ns)
		if inNS && !w.DryRun && w.Resource != "events" && w.Resource != "controllerrevisions" {
			out[w.Resource+"/"+w.Name]++
		}
	}
	return out
}

func diffCounts(before, after map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func TestRunOnceRollsOutInUpgradeOrder(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, repo, first := newSourceRepo(t)
	config := writeConfig(t, repo.URL(), "- {name: web, path: apps/web}\n")

	events := watchDeployments(t, cs, "web")
	code, summary, logs := cli("run", "--once", "--config", config)
	if code != exitOK {
		t.Fatalf("run --once exit %d:\n%s", code, logs)
	}
	t.Logf("first rollout:\n%s\n%s", logs, summary)
	for _, want := range []string{"APP", "web  Succeeded  db      1      1    Applied"} {
		if !strings.Contains(summary, want) {
			t.Errorf("run --once summary lacks %q:\n%s", want, summary)
		}
	}
	if all, _ := repo.Log("roleout/status"); !strings.Contains(strings.Join(all, "\n"), "[wave 1/2]") {
		t.Errorf("no status checkpoint after wave 1: %q", all)
	}
	assertWaveOrder(t, events(), "db", []string{"api", "worker"})
	for _, line := range []string{"[1] role db (upgradeOrder 1, rev 1", "[2] role api (upgradeOrder 2, rev 1", "[3] role worker (upgradeOrder 2, rev 1"} {
		if !strings.Contains(logs, line) {
			t.Errorf("log lacks upgrade sequence line %q:\n%s", line, logs)
		}
	}
	for _, name := range []string{"db", "api", "worker"} {
		d, err := cs.AppsV1().Deployments("web").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Labels[object.AppLabel] != "web" || d.Labels[object.RoleLabel] != name {
			t.Errorf("deployment %s labels = %v", name, d.Labels)
		}
	}
	if _, err := cs.CoreV1().ConfigMaps("web").Get(ctx, "db-config", metav1.GetOptions{}); err != nil {
		t.Errorf("configmap db-config: %v", err)
	}
	evs, err := cs.CoreV1().Events("web").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=api,reason=RolledOut"})
	if err != nil || len(evs.Items) != 1 || !strings.Contains(evs.Items[0].Message, "role api → rev 1") || evs.Items[0].Source.Component != "roleout" {
		t.Errorf("RolledOut event on Deployment api: %v %+v", err, evs)
	}
	log, err := statusLog(repo)
	if err != nil {
		t.Fatal(err)
	}
	wantMsg := fmt.Sprintf("roleout: web roles db → rev 1, api → rev 1, worker → rev 1 (main@sha1:%s)", first[:7])
	if len(log) != 1 || log[0] != wantMsg {
		t.Errorf("status commits = %q, want one: %q", log, wantMsg)
	}
	if _, err := repo.Show("roleout/status", "web/revisions/db/"+readStatus(t, repo, "web").Roles[0].RevisionName+".yaml"); err != nil {
		t.Errorf("role db's revision is not recorded: %v", err)
	}
	if inv, err := repo.Show("roleout/status", "web/inventory.yaml"); err != nil || !strings.Contains(inv, "name: worker") {
		t.Errorf("inventory.yaml = %q, %v", inv, err)
	}
	st := readStatus(t, repo, "web")
	for _, r := range st.Roles {
		for _, w := range r.Workloads {
			if w.Observed == nil || !w.Match || w.Predicted.ReplicaSetName == "" {
				t.Errorf("role %s workload %s: predicted %+v, observed %+v: want equal", r.Name, w.Name, w.Predicted, w.Observed)
			}
		}
		if len(r.Workloads) != 1 {
			t.Errorf("role %s records %d workloads, want 1", r.Name, len(r.Workloads))
		}
	}
	if st.SourceRevision != "main@sha1:"+first || st.Phase != status.PhaseSucceeded || roleSummary(st) != "db:Applied:1 api:Applied:1 worker:Applied:1" {
		t.Errorf("status after first rollout: %s %s %s", st.SourceRevision, st.Phase, roleSummary(st))
	}

	t.Run("a change to one role writes only that role", func(t *testing.T) {
		rv := map[string]string{}
		for _, name := range []string{"db", "api"} {
			d, err := cs.AppsV1().Deployments("web").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rv[name] = d.ResourceVersion
		}
		worker, err := os.ReadFile("testdata/web/worker.yaml")
		if err != nil {
			t.Fatal(err)
		}
		second, err := repo.Commit("main", "worker 2.0", map[string]string{
			"apps/web/worker.yaml": strings.Replace(string(worker), "worker:1.0", "worker:2.0", 1),
		})
		if err != nil {
			t.Fatal(err)
		}
		// roleout plan, offline, says what the run is about to do.
		s := planJSON(t, "plan", "--config", config, "--app", "web")
		var planned []string
		for _, w := range s.Waves {
			for _, r := range w.Roles {
				planned = append(planned, fmt.Sprintf("%s:%v:%d", r.Name, r.Changed, r.RevisionNumber))
				for _, w := range r.Workloads {
					if w.RestartsPods != (r.Name == "worker") || w.Predicted.ReplicaSetName == "" {
						t.Errorf("plan workload %+v: only worker restarts pods, every one has a prediction", w)
					}
				}
			}
		}
		if got := strings.Join(planned, " "); got != "db:false:1 api:false:1 worker:true:2" {
			t.Errorf("plan = %s, want only worker changed, at rev 2", got)
		}
		before := roleoutWrites(t, "web")
		if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
			t.Fatalf("run --once exit %d:\n%s", code, logs)
		}
		if got := diffCounts(before, roleoutWrites(t, "web")); fmt.Sprint(got) != "map[deployments/worker:1]" {
			t.Errorf("writes of the second rollout = %v, want one patch of deployments/worker", got)
		}
		for name, want := range rv {
			d, err := cs.AppsV1().Deployments("web").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d.ResourceVersion != want {
				t.Errorf("deployment %s resourceVersion %s → %s: it was written", name, want, d.ResourceVersion)
			}
		}
		st := readStatus(t, repo, "web")
		if st.SourceRevision != "main@sha1:"+second || roleSummary(st) != "db:Unchanged:1 api:Unchanged:1 worker:Applied:2" {
			t.Errorf("status after second rollout: %s %s", st.SourceRevision, roleSummary(st))
		}
		log, _ := statusLog(repo)
		if want := fmt.Sprintf("roleout: web role worker → rev 2 (main@sha1:%s)", second[:7]); len(log) != 2 || log[0] != want {
			t.Errorf("status commits = %q, want newest %q", log, want)
		}
	})

	t.Run("role revisions in the cluster", func(t *testing.T) {
		crs, err := cs.AppsV1().ControllerRevisions("default").List(ctx, metav1.ListOptions{LabelSelector: object.AppLabel + "=web"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, cr := range crs.Items {
			got = append(got, fmt.Sprintf("%s:%d", cr.Labels[object.RoleLabel], cr.Revision))
			if !strings.HasPrefix(cr.Name, "web-"+cr.Labels[object.RoleLabel]+"-") {
				t.Errorf("ControllerRevision %s is not named <app>-<role>-<hash>", cr.Name)
			}
		}
		sort.Strings(got)
		if diff := cmp.Diff([]string{"api:1", "db:1", "worker:1", "worker:2"}, got); diff != "" {
			t.Errorf("role revisions in the cluster (-want +got):\n%s", diff)
		}
	})

	t.Run("history from git", func(t *testing.T) {
		code, out, errOut := cli("history", "--config", config, "--app", "web")
		if code != exitOK {
			t.Fatalf("history exit %d: %s", code, errOut)
		}
		t.Logf("roleout history:\n%s", out)
		for _, want := range []string{"revision main@sha1:", "Succeeded", "worker", "Deployment/worker", "ReplicaSet worker-", "rollouts (oldest first)", "worker→2 Succeeded"} {
			if !strings.Contains(out, want) {
				t.Errorf("history lacks %q", want)
			}
		}
		if strings.Contains(out, "MISMATCH") {
			t.Error("a prediction did not match the controller")
		}
		code, out, _ = cli("history", "--config", config, "--app", "web", "--role", "db", "--output", "json")
		var rep status.HistoryReport
		if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Status.Roles) != 1 || len(rep.Rollouts) != 2 || len(rep.Revisions["db"]) != 1 {
			t.Errorf("history --role db --output json: exit %d, %+v", code, rep)
		}
	})

	t.Run("no new commit: no write, no status commit", func(t *testing.T) {
		before := roleoutWrites(t, "web")
		if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
			t.Fatalf("run --once exit %d:\n%s", code, logs)
		}
		if got := diffCounts(before, roleoutWrites(t, "web")); len(got) != 0 {
			t.Errorf("writes = %v, want none", got)
		}
		if log, _ := statusLog(repo); len(log) != 2 {
			t.Errorf("status commits = %d, want still 2", len(log))
		}
	})
}

// statusLog returns the subjects of the status branch's rollout commits,
// newest first, leaving out the checkpoints made between waves.
func statusLog(repo *testgit.Repo) ([]string, error) {
	all, err := repo.Log("roleout/status")
	var out []string
	for _, s := range all {
		if !strings.Contains(s, " [wave ") {
			out = append(out, s)
		}
	}
	return out, err
}

// deploymentEvent is one watch event of a Deployment: its first
// container's image, and whether that template was rolled out and
// available.
type deploymentEvent struct {
	typ, name, image string
	available        bool
}

// watchDeployments records the Deployment events of namespace ns, in the
// order the API server sent them (etcd's order), until the returned
// function is called.
func watchDeployments(t *testing.T, cs kubernetes.Interface, ns string) func() []deploymentEvent {
	t.Helper()
	w, err := cs.AppsV1().Deployments(ns).Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var events []deploymentEvent
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			d, ok := ev.Object.(*appsv1.Deployment)
			if !ok {
				continue
			}
			available := false
			for _, c := range d.Status.Conditions {
				available = available || (c.Type == appsv1.DeploymentAvailable && c.Status == "True" &&
					d.Status.UpdatedReplicas == *d.Spec.Replicas && d.Status.ObservedGeneration == d.Generation)
			}
			events = append(events, deploymentEvent{typ: string(ev.Type), name: d.Name, image: d.Spec.Template.Spec.Containers[0].Image, available: available})
		}
	}()
	return func() []deploymentEvent {
		w.Stop()
		<-done
		return events
	}
}

// assertWaveOrder checks that first was Available before any of later
// was created.
func assertWaveOrder(t *testing.T, events []deploymentEvent, first string, later []string) {
	t.Helper()
	availableAt, createdAt := -1, map[string]int{}
	for i, ev := range events {
		if ev.name == first && ev.available && availableAt < 0 {
			availableAt = i
		}
		if ev.typ == "ADDED" {
			createdAt[ev.name] = i
		}
	}
	if availableAt < 0 {
		t.Fatalf("%s never became Available; events %+v", first, events)
	}
	for _, name := range later {
		at, ok := createdAt[name]
		if !ok {
			t.Errorf("%s was never created; events %+v", name, events)
		} else if at < availableAt {
			t.Errorf("%s created (event %d) before %s was Available (event %d); events %+v", name, at, first, availableAt, events)
		}
	}
}
