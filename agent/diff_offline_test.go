package agent

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// offlineDiffAfter reconciles first, then diffs the render of second
// offline against the status that reconcile wrote, as roleout diff
// --offline does.
func offlineDiffAfter(t *testing.T, first, second []*unstructured.Unstructured, mutate func(*config.App)) *diff.Report {
	t.Helper()
	ctx := context.Background()
	h := newHarness(first, mutate)
	if err := h.agent.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	prev, err := status.Load(ctx, h.status, "llm")
	if err != nil {
		t.Fatal(err)
	}
	h.newCommit('b', second)
	snap := h.fetcher.snap
	snap.Trust = sources.Trusted
	app := h.agent.cfg.Apps[0]
	plan, err := h.agent.planning().plan(ctx, planRequest{snap: snap, app: app, prev: prev, cluster: h.agent.deps.Cluster})
	if err != nil {
		t.Fatal(err)
	}
	return diff.Offline(DiffTarget(app), plan, prev.Recorded())
}

// changes describes what rep says changes, one line per step change,
// note and changed object, in report order.
func changes(rep *diff.Report) []string {
	var out []string
	for _, s := range rep.Steps {
		if s.Change != "" {
			out = append(out, fmt.Sprintf("%s: %s", s.Role, s.Change))
		}
		if s.Note != "" {
			out = append(out, fmt.Sprintf("%s: note %s", s.Role, s.Note))
		}
		for _, o := range s.Objects {
			if o.Change != model.NoChange {
				out = append(out, fmt.Sprintf("%s: %s %s", s.Role, o.Change, o.Object))
			}
		}
	}
	return out
}

// namespace returns a Namespace with labels.
func namespace(name string, labels map[string]string) *unstructured.Unstructured {
	u := testObject("v1", "Namespace", "", name)
	u.SetLabels(labels)
	return u
}

// withRole gives o the role annotations of role with upgradeOrder order.
func withRole(o *unstructured.Unstructured, role string, order int) *unstructured.Unstructured {
	o.SetAnnotations(map[string]string{object.RoleAnnotation: role, object.UpgradeOrderAnnotation: fmt.Sprint(order)})
	return o
}

// TestDiffOfflineUnchanged: the render the last reconcile applied diffs
// to nothing.
func TestDiffOfflineUnchanged(t *testing.T) {
	rep := offlineDiffAfter(t, threeRoles("decode:1"), threeRoles("decode:1"), nil)
	if got := changes(rep); len(got) != 0 || rep.Changed || rep.Summary.Changed() {
		t.Errorf("offline diff of the applied render: changed %v, %+v: %v", rep.Changed, rep.Summary, got)
	}
	if len(rep.Steps) != 4 || rep.Steps[0].Role != diff.PrerequisitesStep || rep.Steps[0].Counts.Unchanged != 1 {
		t.Errorf("steps = %+v, want the prerequisite step (Namespace/app unchanged) and three roles", rep.Steps)
	}
}

// TestDiffOfflinePrerequisites: a changed, a new and a removed
// prerequisite (the status records only the step's hash) are changes of
// the prerequisite step.
func TestDiffOfflinePrerequisites(t *testing.T) {
	withNamespaces := func(nss ...*unstructured.Unstructured) []*unstructured.Unstructured {
		return append(nss, threeRoles("decode:1")[1:]...)
	}
	cases := []struct {
		name          string
		first, second []*unstructured.Unstructured
		want          []string
	}{
		{"changed", withNamespaces(namespace("app", nil)), withNamespaces(namespace("app", map[string]string{"team": "b"})),
			[]string{"(prerequisites): note " + diff.PrerequisitesNotRecorded, "(prerequisites): update Namespace/app"}},
		{"added", withNamespaces(namespace("app", nil)), withNamespaces(namespace("app", nil), namespace("extra", nil)),
			[]string{"(prerequisites): note " + diff.PrerequisitesNotRecorded, "(prerequisites): update Namespace/app", "(prerequisites): create Namespace/extra"}},
		{"removed", withNamespaces(namespace("app", nil), namespace("extra", nil)), withNamespaces(namespace("app", nil)),
			[]string{"(prerequisites): note " + diff.PrerequisitesNotRecorded, "(prerequisites): update Namespace/app", "(prerequisites): delete Namespace/extra"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := offlineDiffAfter(t, tc.first, tc.second, func(a *config.App) { a.Prune = true })
			if diff := cmp.Diff(tc.want, changes(rep)); diff != "" {
				t.Errorf("offline diff (-want +got):\n%s", diff)
			}
			if !rep.Changed || !rep.Summary.Changed() {
				t.Errorf("a changed prerequisite step is no change: changed %v, summary %+v", rep.Changed, rep.Summary)
			}
		})
	}
}

// TestDiffOfflineRemovedRole: a role the last status has and the render
// does not is removed and its objects are deleted; with prune off they
// are listed all the same and the step says they stay.
func TestDiffOfflineRemovedRole(t *testing.T) {
	cm := withRole(testObject("v1", "ConfigMap", "app", "router-config"), "router", 3)
	first := append(threeRoles("decode:1"), cm)
	second := threeRoles("decode:1")[:3] // no router
	for _, prune := range []bool{true, false} {
		t.Run(fmt.Sprintf("prune %v", prune), func(t *testing.T) {
			rep := offlineDiffAfter(t, first, second, func(a *config.App) { a.Prune = prune })
			want := []string{"router: removed", "router: delete ConfigMap/app/router-config", "router: delete Deployment/app/router"}
			if !prune {
				want = []string{"router: removed", "router: note " + diff.PruneOff, "router: delete ConfigMap/app/router-config", "router: delete Deployment/app/router"}
			}
			if diff := cmp.Diff(want, changes(rep)); diff != "" {
				t.Errorf("offline diff (-want +got):\n%s", diff)
			}
			if !rep.Changed || rep.Summary.Delete != 2 {
				t.Errorf("changed %v, summary %+v; want 2 deletes", rep.Changed, rep.Summary)
			}
			for _, o := range rep.Steps[len(rep.Steps)-1].Objects {
				if o.Object.Kind == "Deployment" && o.Diff == "" {
					t.Errorf("the deletion of %s does not show the content the revision records", o.Object)
				}
			}
		})
	}
}

// TestDiffOfflineAddedRole: a role the last status does not have is
// added, its objects created.
func TestDiffOfflineAddedRole(t *testing.T) {
	second := append(threeRoles("decode:1"), roleDeployment("cache", "cache", 4, "cache:1"))
	rep := offlineDiffAfter(t, threeRoles("decode:1"), second, nil)
	want := []string{"cache: added", "cache: create Deployment/app/cache"}
	if diff := cmp.Diff(want, changes(rep)); diff != "" {
		t.Errorf("offline diff (-want +got):\n%s", diff)
	}
	if !rep.Changed {
		t.Error("an added role is no change")
	}
}

// TestDiffOfflineMovedObject: an object that moves to another role is
// not deleted: only the role it joins shows it.
func TestDiffOfflineMovedObject(t *testing.T) {
	first := append(threeRoles("decode:1"), withRole(testObject("v1", "ConfigMap", "app", "shared"), "decode", 2))
	second := append(threeRoles("decode:1"), withRole(testObject("v1", "ConfigMap", "app", "shared"), "router", 3))
	rep := offlineDiffAfter(t, first, second, func(a *config.App) { a.Prune = true })
	want := []string{"router: create ConfigMap/app/shared"}
	if diff := cmp.Diff(want, changes(rep)); diff != "" {
		t.Errorf("offline diff (-want +got):\n%s", diff)
	}
}
