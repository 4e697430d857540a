package apply

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/yaml"
)

// TestWaitHealthyLeaderWorkerSet runs the real lws controller with groups
// that are not ready (their workers fit no node): the controller has
// observed the LeaderWorkerSet, which kstatus alone counts as Current, yet
// the health gate holds the wave and says how many groups are ready. (The
// lws controller counts ready groups only with its pod webhook on, which
// the test cluster runs without; TestLeaderWorkerSetReady covers the
// rule's passing side.)
func TestWaitHealthyLeaderWorkerSet(t *testing.T) {
	a := newApplier(t)
	startLWS(t, a)
	ctx := context.Background()
	applyOrFail(t, a, obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: health-lws}\n"))
	slow := obj(t, `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: slow, namespace: health-lws}
spec:
  replicas: 2
  rolloutStrategy:
    type: RollingUpdate
    rollingUpdateConfiguration: {maxUnavailable: 1, maxSurge: 0, partition: 0}
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        nodeSelector: {roleout.test/lws-slow: "ready"}
        containers: [{name: app, image: registry.example/model:1.0}]
`)
	applyOrFail(t, a, slow)
	err := a.WaitHealthy(ctx, []*unstructured.Unstructured{slow}, WaitOptions{Timeout: 8 * time.Second})
	var nr *NotReadyError
	if !errors.As(err, &nr) {
		t.Fatalf("a LeaderWorkerSet with no ready group passed the health gate: %v", err)
	}
	if !strings.Contains(err.Error(), "LeaderWorkerSet groups:") || !strings.Contains(err.Error(), "0 of 2 ready") {
		t.Errorf("the not-ready error does not count the groups: %v", err)
	}
	// kstatus alone calls it Current: the controller has observed it.
	live, err := a.client.Resource(schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}).
		Namespace("health-lws").Get(ctx, "slow", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := status.Compute(live); err != nil || res.Status != status.CurrentStatus {
		t.Errorf("kstatus says %v (%v); the test means a LeaderWorkerSet kstatus counts as Current", res, err)
	}
}

// TestLeaderWorkerSetReady: the readiness rule of a LeaderWorkerSet, on
// the status the lws controller writes.
func TestLeaderWorkerSetReady(t *testing.T) {
	cases := []struct {
		name, status string
		generation   int64
		want         string // "" when ready
	}{
		{name: "all groups updated and ready", generation: 2, status: "{observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, conditions: [{type: Available, status: 'True'}]}"},
		{name: "available mid-update", generation: 2, status: "{observedGeneration: 2, replicas: 2, updatedReplicas: 1, readyReplicas: 2, conditions: [{type: Available, status: 'True'}, {type: UpdateInProgress, status: 'True'}]}",
			want: "LeaderWorkerSet groups: 1 of 2 updated, 2 of 2 ready, rolling update in progress"},
		{name: "not yet observed", generation: 3, status: "{observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2}",
			want: "generation 3 not yet observed (at 2)"},
		{name: "nothing counted yet", generation: 1, status: "{observedGeneration: 1}", want: "0 of 2 updated, 0 of 2 ready, 0 exist"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := withStatus(t, "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet", tc.status, tc.generation)
			msg, ok := ready(o)
			if ok != (tc.want == "") || !strings.Contains(msg, tc.want) {
				t.Errorf("ready = %v, %q; want ready %v with %q", ok, msg, tc.want == "", tc.want)
			}
		})
	}
}

// withStatus returns an object of type head (its apiVersion and kind
// lines) with two replicas, status and generation, decoded as a client
// decodes it: integers are int64.
func withStatus(t *testing.T, head, status string, generation int64) *unstructured.Unstructured {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(head + "\nmetadata: {name: x, namespace: y}\nspec: {replicas: 2}\nstatus: " + status + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := &unstructured.Unstructured{}
	if err := o.UnmarshalJSON(js); err != nil {
		t.Fatal(err)
	}
	o.SetGeneration(generation)
	return o
}
