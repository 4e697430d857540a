package apply

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// stormService is a StormService of two replicas in predict-storm whose
// pods need node labels nodeLabel (none, when empty).
func stormService(t *testing.T, name, nodeLabel string) *unstructured.Unstructured {
	selector := ""
	if nodeLabel != "" {
		selector = "\n            nodeSelector: {roleout.test/storm: " + nodeLabel + "}"
	}
	return obj(t, `apiVersion: orchestration.aibrix.ai/v1alpha1
kind: StormService
metadata: {name: `+name+`, namespace: predict-storm}
spec:
  replicas: 2
  selector: {matchLabels: {app: `+name+`}}
  template:
    metadata: {labels: {app: `+name+`}}
    spec:
      roles:
      - name: worker
        replicas: 1
        template:
          spec:`+selector+`
            containers: [{name: app, image: registry.example/model:1.0}]
`)
}

// TestWaitHealthyStormService runs the real aibrix controller: a
// StormService whose pods fit no node is observed, which kstatus alone
// counts as Current, yet the health gate holds the wave and counts its
// replicas; one whose pods run (kwok makes them ready) passes.
func TestWaitHealthyStormService(t *testing.T) {
	a := newApplier(t)
	startAibrix(t, a)
	ctx := context.Background()
	slow := stormService(t, "slow", "nowhere")
	applyOrFail(t, a, slow)
	err := a.WaitHealthy(ctx, []*unstructured.Unstructured{slow}, WaitOptions{Timeout: 8 * time.Second})
	var nr *NotReadyError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "StormService replicas:") || !strings.Contains(err.Error(), "of 2 ready") {
		t.Fatalf("a StormService with no ready replica at the health gate: %v, want it held with its replicas counted", err)
	}
	live, err := a.client.Resource(runtimeschema.GroupVersionResource{Group: "orchestration.aibrix.ai", Version: "v1alpha1", Resource: "stormservices"}).
		Namespace("predict-storm").Get(ctx, "slow", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := status.Compute(live); err != nil || res.Status != status.CurrentStatus {
		t.Errorf("kstatus says %v (%v); the test means a StormService kstatus counts as Current", res, err)
	}
	fast := stormService(t, "fast", "")
	applyOrFail(t, a, fast)
	if err := a.WaitHealthy(ctx, []*unstructured.Unstructured{fast}, WaitOptions{Timeout: time.Minute}); err != nil {
		t.Errorf("a StormService whose pods run did not pass the health gate: %v", err)
	}
}

// TestStormServiceReady: the readiness rule of a StormService, on the
// status the aibrix controller writes.
func TestStormServiceReady(t *testing.T) {
	cases := []struct {
		name, status string
		generation   int64
		want         string // "" when ready
	}{
		{name: "every replica updated and ready", generation: 2, status: "{observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, updatedReadyReplicas: 2, currentRevision: a, updateRevision: a}"},
		{name: "ready on the old revision", generation: 2, status: "{observedGeneration: 2, replicas: 2, updatedReplicas: 1, readyReplicas: 2, updatedReadyReplicas: 1, currentRevision: a, updateRevision: b}",
			want: "StormService replicas: 1 of 2 updated, 2 of 2 ready, 1 of 2 updated and ready, revision a still current (updating to b)"},
		{name: "not yet observed", generation: 3, status: "{observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, updatedReadyReplicas: 2}",
			want: "generation 3 not yet observed (at 2)"},
		{name: "nothing counted yet", generation: 1, status: "{}", want: "0 of 2 updated, 0 of 2 ready, 0 of 2 updated and ready, 0 exist"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := withStatus(t, "apiVersion: orchestration.aibrix.ai/v1alpha1\nkind: StormService", tc.status, tc.generation)
			msg, ok := ready(o)
			if ok != (tc.want == "") || !strings.Contains(msg, tc.want) {
				t.Errorf("ready = %v, %q; want ready %v with %q", ok, msg, tc.want == "", tc.want)
			}
		})
	}
}
