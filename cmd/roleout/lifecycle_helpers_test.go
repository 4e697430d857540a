package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/status"
)

// shopSteps maps the shop fixture's objects, by audit resource/name, to
// the step that applies them.
var shopSteps = map[string]string{
	"namespaces/shop": "prerequisites", "customresourcedefinitions/widgets.example.com": "prerequisites",
	"secrets/db-creds": "db", "deployments/db": "db",
	"deployments/api": "api", "widgets/api-widget": "api",
	"deployments/front": "front", "configmaps/front-config": "front", "configmaps/front-legacy": "front",
}

// shopKinds is the shop app's allowedKinds: it ships a CRD, a
// cluster-scoped kind, so it lists every kind it uses.
const shopKinds = `[{group: apiextensions.k8s.io, kind: CustomResourceDefinition}, {group: "", kind: Namespace}, ` +
	`{group: "", kind: Secret}, {group: "", kind: ConfigMap}, {group: apps, kind: "*"}, {group: example.com, kind: Widget}]`

// roleoutWritesLog returns the writes roleout made that the API server
// accepted and persisted, oldest first.
func roleoutWritesLog(t *testing.T) []testcluster.Write {
	t.Helper()
	all, err := cluster.Writes("roleout/")
	if err != nil {
		t.Fatal(err)
	}
	var out []testcluster.Write
	for _, w := range all {
		if !w.DryRun && w.Code < 300 {
			out = append(out, w)
		}
	}
	return out
}

// shopWriteOrder returns the steps of roleout's writes to the shop
// objects after the first since writes, in the order the API server
// completed them, runs of one step collapsed: a rollout that finishes
// each step before the next gives each step once.
func shopWriteOrder(t *testing.T, since int) []string {
	t.Helper()
	var order []string
	for _, w := range roleoutWritesLog(t)[since:] {
		step, ok := shopSteps[w.Resource+"/"+w.Name]
		if !ok || (w.Namespace != "shop" && w.Namespace != "" && w.Resource != "namespaces") {
			continue
		}
		if len(order) == 0 || order[len(order)-1] != step {
			order = append(order, step)
		}
	}
	return order
}

// widgetSize returns spec.size of the shop's custom resource.
func widgetSize(t *testing.T) int64 {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	w, err := dyn.Resource(widgets).Namespace("shop").Get(context.Background(), "api-widget", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the custom resource was not applied: %v", err)
	}
	size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size")
	return size
}

// history returns `roleout history --output json` for role of the shop
// app.
func history(t *testing.T, config, role string) *status.HistoryReport {
	t.Helper()
	code, out, errOut := cli("history", "--output", "json", "--config", config, "--app", "shop", "--role", role)
	if code != exitOK {
		t.Fatalf("history exit %d: %s", code, errOut)
	}
	var rep status.HistoryReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("history output: %v\n%s", err, out)
	}
	return &rep
}

// roleRevisions returns role's revision names by number, from history.
func roleRevisions(t *testing.T, config, role string) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	for _, r := range history(t, config, role).Revisions[role] {
		out[r.Number] = r.Name
	}
	return out
}

// lastRollout describes the last rollout record in history as "trigger
// role rev N name action" for each role it applied.
func lastRollout(t *testing.T, config, role string) string {
	t.Helper()
	rep := history(t, config, role)
	if len(rep.Rollouts) == 0 {
		t.Fatal("history holds no rollouts")
	}
	last := rep.Rollouts[len(rep.Rollouts)-1]
	desc := last.Trigger
	for _, w := range last.Waves {
		for _, r := range w.Roles {
			desc += fmt.Sprintf(" %s rev %d %s %s", r.Name, r.RevisionNumber, r.RevisionName, r.Action)
		}
	}
	return desc
}

// statusRole returns role's entry in st, or nil.
func statusRole(st *status.App, role string) *status.Role {
	for _, r := range st.Roles {
		if r.Name == role {
			return r
		}
	}
	return nil
}

// clusterRevisionsJSON returns, as JSON, the role revisions roleout keeps
// in the cluster for the shop app.
func clusterRevisionsJSON(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	list, err := cs.AppsV1().ControllerRevisions("").List(context.Background(), metav1.ListOptions{LabelSelector: object.AppLabel + "=shop"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) == 0 {
		t.Error("no role revisions of shop in the cluster")
	}
	data, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
