package apply

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// TestWaitHealthyWorkloads waits on workloads the real controllers drive
// on kwok's fake nodes. kwok's pod-complete Stage moves a Job's running
// pods to Succeeded, so a Job does complete; one whose pod cannot be
// scheduled never does, and the wait says how far it got (kstatus alone
// would call it Current as soon as it started).
func TestWaitHealthyWorkloads(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	job := func(name, nodeSelector string) string {
		return `apiVersion: batch/v1
kind: Job
metadata: {name: ` + name + `, namespace: default}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {` + nodeSelector + `}
      containers: [{name: main, image: "seed:1"}]
`
	}
	daemonSet := func(image string) string {
		return `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: "` + image + `"}]}
`
	}
	tests := []struct {
		name    string
		yaml    string
		timeout time.Duration
		// check reads the live object after a successful wait.
		check   func(t *testing.T, live *unstructured.Unstructured)
		wantErr string // a regular expression
	}{
		{name: "a Job that completes", yaml: job("seed", ""), timeout: time.Minute, check: func(t *testing.T, live *unstructured.Unstructured) {
			if got := fieldString(live, "status", "succeeded"); got != "1" {
				t.Errorf("Job status.succeeded = %s after the wait, want 1", got)
			}
		}},
		{
			name: "a Job that never completes", yaml: job("seed-stuck", "no-such-node: 'true'"), timeout: 3 * time.Second,
			wantErr: `^Job/default/seed-stuck not ready \(InProgress\): Job not complete: 0 of 1 succeeded, 1 active, 0 failed; ` +
				`pod seed-stuck-[a-z0-9]+: PodScheduled=False Unschedulable: 0/2 nodes are available: .*; still InProgress after waiting 3s$`,
		},
		{name: "a DaemonSet", yaml: daemonSet("agent:1"), timeout: time.Minute, check: checkDaemonSet("agent:1")},
		{name: "a DaemonSet update", yaml: daemonSet("agent:2"), timeout: time.Minute, check: checkDaemonSet("agent:2")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := obj(t, tc.yaml)
			if _, err := a.Apply(ctx, []*unstructured.Unstructured{o}, ApplyOptions{}); err != nil {
				t.Fatal(err)
			}
			err := a.WaitHealthy(ctx, []*unstructured.Unstructured{o}, WaitOptions{Timeout: tc.timeout})
			if tc.wantErr != "" {
				var nr *NotReadyError
				if !errors.As(err, &nr) || !regexp.MustCompile(tc.wantErr).MatchString(err.Error()) {
					t.Errorf("error %v, want a NotReadyError matching %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, getLive(t, a, o))
		})
	}
}

// checkDaemonSet checks that every node runs image, updated and
// available.
func checkDaemonSet(image string) func(t *testing.T, live *unstructured.Unstructured) {
	return func(t *testing.T, live *unstructured.Unstructured) {
		t.Helper()
		nodes := fieldString(live, "status", "desiredNumberScheduled")
		got := []string{fieldString(live, "status", "updatedNumberScheduled"), fieldString(live, "status", "numberAvailable")}
		if diff := cmp.Diff([]string{nodes, nodes}, got); diff != "" || nodes == "0" {
			t.Errorf("DaemonSet on %s nodes: updated, available (-want +got):\n%s", nodes, diff)
		}
		if img := fieldString(live, "spec", "template", "spec", "containers"); !strings.Contains(img, image) {
			t.Errorf("DaemonSet template %s, want image %s", img, image)
		}
	}
}

// TestWaitHealthyReadyCondition defines a CRD with a status subresource
// and sets its custom resource's status from the test, as its controller
// would: the resource is Current only once Ready is True, and the wait's
// error carries the Ready condition's message. A resource with no Ready
// condition yet is Current: kstatus cannot tell it from a kind that has
// no controller (the Widget of the shop fixture).
func TestWaitHealthyReadyCondition(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	crd := obj(t, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gauges.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gauges, singular: gauge, kind: Gauge}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`)
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{crd}, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := a.WaitHealthy(ctx, []*unstructured.Unstructured{crd}, WaitOptions{Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	cr := obj(t, "apiVersion: example.com/v1\nkind: Gauge\nmetadata: {name: fuel, namespace: default}\nspec: {level: 3}\n")
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{cr}, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	gauges := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gauges"}).Namespace("default")
	tests := []struct {
		name  string
		ready map[string]any // nil: no conditions
		want  string         // the wait's error, "" for none
	}{
		{name: "no Ready condition yet", want: ""},
		{
			name:  "Ready False",
			ready: map[string]any{"type": "Ready", "status": "False", "reason": "Filling", "message": "tank at 30%"},
			want:  "Gauge/default/fuel not ready (InProgress): tank at 30%; still InProgress after waiting 1s",
		},
		{
			name:  "Ready Unknown",
			ready: map[string]any{"type": "Ready", "status": "Unknown", "reason": "Probing", "message": "sensor not read yet"},
			want:  "Gauge/default/fuel not ready (InProgress): sensor not read yet; still InProgress after waiting 1s",
		},
		{name: "Ready True", ready: map[string]any{"type": "Ready", "status": "True", "reason": "Full", "message": "tank full"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			live, err := gauges.Get(ctx, "fuel", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var conds []any
			if tc.ready != nil {
				tc.ready["lastTransitionTime"] = metav1.Now().UTC().Format(time.RFC3339)
				conds = []any{tc.ready}
			}
			if err := unstructured.SetNestedSlice(live.Object, conds, "status", "conditions"); err != nil {
				t.Fatal(err)
			}
			if _, err := gauges.UpdateStatus(ctx, live, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			got := ""
			if err := a.WaitHealthy(ctx, []*unstructured.Unstructured{cr}, WaitOptions{Timeout: time.Second}); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("wait: %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPodTrouble reads what a pod that is not ready says, from statuses a
// kubelet writes (kwok runs no containers, so image pulls and crashes are
// not seen on the test cluster).
func TestPodTrouble(t *testing.T) {
	tests := []struct{ name, status, want string }{
		{
			name:   "an image that cannot be pulled",
			status: `{phase: Pending, conditions: [{type: Ready, status: "False", reason: ContainersNotReady, message: "containers with unready status: [api]"}, {type: PodScheduled, status: "True"}], containerStatuses: [{name: api, state: {waiting: {reason: ImagePullBackOff, message: "Back-off pulling image \"api:9\""}}}]}`,
			want:   `Ready=False ContainersNotReady: containers with unready status: [api]; container api ImagePullBackOff: Back-off pulling image "api:9"`,
		},
		{
			name:   "a crash",
			status: `{phase: Running, containerStatuses: [{name: api, state: {waiting: {reason: CrashLoopBackOff}}, lastState: {terminated: {reason: Error, exitCode: 1}}}]}`,
			want:   "container api CrashLoopBackOff",
		},
		{name: "ready", status: `{phase: Running, conditions: [{type: Ready, status: "True"}], containerStatuses: [{name: api, state: {running: {}}}]}`},
		{name: "succeeded", status: `{phase: Succeeded, containerStatuses: [{name: seed, state: {terminated: {reason: Completed, exitCode: 0}}}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := obj(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nstatus: "+tc.status+"\n")
			if diff := cmp.Diff(tc.want, podTrouble(pod)); diff != "" {
				t.Errorf("pod trouble (-want +got):\n%s", diff)
			}
		})
	}
}
