package agent

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
)

// TestClusterRevisions: with clusterRevisions on, every status commit of
// a rollout applies the role revisions to the cluster, in the configured
// namespace, and deletes those truncated from the history.
func TestClusterRevisions(t *testing.T) {
	limit := 1
	h := newHarness(threeRoles("decode:1"), func(a *config.App) { a.RevisionHistoryLimit = &limit })
	h.agent.cfg.Status.ClusterRevisions = &config.ClusterRevisions{Namespace: "roleout-system"}
	ctx := context.Background()
	revisions := func() []string {
		var out []string
		for _, name := range h.applier.applied {
			if strings.HasPrefix(name, "llm-") {
				out = append(out, name)
			}
		}
		sort.Strings(out)
		return out
	}
	if err := h.agent.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	first := h.appStatus(t)
	want := []string{first.Roles[1].RevisionName, first.Roles[0].RevisionName, first.Roles[2].RevisionName}
	sort.Strings(want)
	if diff := cmp.Diff(want, revisions()); diff != "" {
		t.Errorf("revisions applied to the cluster (-want +got):\n%s", diff)
	}
	if got := h.applier.labels[want[0]][object.AppLabel]; got != "llm" {
		t.Errorf("revision %s carries app label %q, want llm", want[0], got)
	}
	h.applier.applied = nil
	h.newCommit('b', threeRoles("decode:2"))
	if err := h.agent.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	second := h.appStatus(t)
	if got := revisions(); !contains(got, second.Roles[1].RevisionName) {
		t.Errorf("the new decode revision %s was not applied: %v", second.Roles[1].RevisionName, got)
	}
	if diff := cmp.Diff([]string{first.Roles[1].RevisionName}, h.applier.pruned); diff != "" {
		t.Errorf("revisions deleted from the cluster after truncation to 1 (-want +got):\n%s", diff)
	}

	t.Run("off", func(t *testing.T) {
		h := newHarness(threeRoles("decode:1"), nil)
		if err := h.agent.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		for _, name := range h.applier.applied {
			if strings.HasPrefix(name, "llm-") {
				t.Errorf("revision %s applied with clusterRevisions off", name)
			}
		}
	})
}
