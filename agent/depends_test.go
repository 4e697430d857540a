package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/status"
)

// TestRunInOrder: an app runs only after the apps it depends on, directly
// or not, have returned; apps that depend on nothing run at once, within
// the limit.
func TestRunInOrder(t *testing.T) {
	apps := []config.App{
		{Name: "web", DependsOn: []string{"platform"}},
		{Name: "platform", DependsOn: []string{"infra"}},
		{Name: "infra"},
		{Name: "docs"},
	}
	for _, limit := range []int{1, 4} {
		var mu sync.Mutex
		var order []string
		runInOrder(apps, limit, func(a config.App) {
			mu.Lock()
			defer mu.Unlock()
			order = append(order, a.Name)
		})
		pos := func(n string) int { return slices.Index(order, n) }
		if len(order) != 4 || pos("infra") > pos("platform") || pos("platform") > pos("web") {
			t.Errorf("limit %d: order %v; want infra before platform before web", limit, order)
		}
	}
	// Two apps with no dependency run side by side: each waits for the
	// other to have started (a deadlock, caught by the bound, if not).
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	stuck := false
	runInOrder(apps[2:], 2, func(config.App) {
		started.Done()
		select {
		case <-both:
		case <-time.After(time.Minute):
			stuck = true
		}
	})
	if stuck {
		t.Error("infra and docs did not run at once")
	}
}

// TestDependsOnWaits: an app whose dependency failed at this commit
// applies nothing and records WaitingForDependencies, naming it; once the
// dependency rolls out, both roll out in one poll, the dependency first.
func TestDependsOnWaits(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), func(a *config.App) { a.DependsOn = []string{"infra"} })
	infra := h.agent.cfg.Apps[0]
	infra.Name, infra.Path, infra.DependsOn = "infra", "apps/infra", nil
	h.agent.cfg.Apps = append([]config.App{infra}, h.agent.cfg.Apps...)
	h.renderer.errFor = map[string]error{"infra": errors.New("kustomize build apps/infra: broken")}
	if err := h.agent.RunOnce(context.Background()); err == nil {
		t.Fatal("the poll with infra broken returned no error")
	}
	st := h.appStatus(t)
	if st.Phase != status.PhaseWaitingForDependencies || !strings.Contains(st.Message, "waiting on infra (Failed)") {
		t.Errorf("llm: phase %s, message %q; want %s naming infra", st.Phase, st.Message, status.PhaseWaitingForDependencies)
	}
	if len(h.applier.applied) != 0 {
		t.Errorf("applied %v while infra is broken", h.applier.applied)
	}

	h.renderer.errFor = nil
	h.renderer.objsFor = map[string][]*unstructured.Unstructured{"infra": {{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "infra-settings", "namespace": "default"}}}}}
	h.newCommit('b', threeRoles("decode:1"))
	var order []string
	h.applier.afterApply = func(name string) {
		if len(order) == 0 || order[len(order)-1] != name {
			order = append(order, name)
		}
	}
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(order) == 0 || order[0] != "infra-settings" {
		t.Errorf("apply order %v: want infra's ConfigMap first", order)
	}
	if st := h.appStatus(t); st.Phase != status.PhaseSucceeded {
		t.Errorf("llm after infra rolled out: %s %q", st.Phase, st.Message)
	}
	infraStatus, err := status.ParseApp(h.status.files["infra/status.yaml"], "infra/status.yaml")
	if err != nil || infraStatus.Phase != status.PhaseSucceeded {
		t.Fatalf("infra: %v %v", infraStatus, err)
	}
}
