package apply

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testcluster"
)

var cluster *testcluster.Cluster

func TestMain(m *testing.M) {
	os.Exit(testcluster.Main(m, testcluster.DefaultOptions(), &cluster))
}

func obj(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func deployment(t *testing.T, name, image, nodeSelector string) *unstructured.Unstructured {
	t.Helper()
	return obj(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: `+name+`, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: `+name+`}}
  template:
    metadata: {labels: {app: `+name+`}}
    spec:
      nodeSelector: {`+nodeSelector+`}
      containers: [{name: main, image: "`+image+`"}]
`)
}

func newApplier(t *testing.T) *Applier {
	t.Helper()
	a, err := New(testcluster.Require(t, cluster).Config, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func actions(rs []Result) []Action {
	var out []Action
	for _, r := range rs {
		out = append(out, r.Action)
	}
	return out
}

func TestApplyActionsAndHealth(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	cm := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config, namespace: default}\ndata: {a: '1'}\n")
	dep := deployment(t, "web", "web:1.0", "")
	opts := ApplyOptions{Labels: map[string]string{"roleout.dev/app": "web"}}
	steps := []struct {
		name string
		objs []*unstructured.Unstructured
		want []Action
	}{
		{"create", []*unstructured.Unstructured{cm, dep}, []Action{Created, Created}},
		{"same again", []*unstructured.Unstructured{cm, dep}, []Action{Unchanged, Unchanged}},
		{"new image", []*unstructured.Unstructured{cm, deployment(t, "web", "web:2.0", "")}, []Action{Unchanged, Configured}},
	}
	for _, s := range steps {
		res, err := a.Apply(ctx, s.objs, opts)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if diff := cmp.Diff(s.want, actions(res)); diff != "" {
			t.Errorf("%s: actions (-want +got):\n%s", s.name, diff)
		}
		if err := a.WaitHealthy(ctx, s.objs, WaitOptions{Timeout: time.Minute}); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	d, err := cs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Labels["roleout.dev/app"] != "web" || d.Status.UpdatedReplicas != 2 || d.Status.AvailableReplicas != 2 {
		t.Errorf("deployment after the wait: labels %v, status %+v", d.Labels, d.Status)
	}
	for _, mf := range d.ManagedFields {
		if mf.Operation == metav1.ManagedFieldsOperationApply && mf.Manager != FieldManager {
			t.Errorf("applied by field manager %q, want %q", mf.Manager, FieldManager)
		}
	}
}

// TestWaitHealthyTimeoutNamesObject waits on a Deployment whose pods can
// never be scheduled: the error names it, its kstatus status and message,
// and the Deployment's own condition that says what is wrong.
func TestWaitHealthyTimeoutNamesObject(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	stuck := deployment(t, "stuck", "stuck:1.0", "no-such-node: 'true'")
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{stuck}, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	err := a.WaitHealthy(ctx, []*unstructured.Unstructured{stuck}, WaitOptions{Timeout: 2 * time.Second})
	var nr *NotReadyError
	if !errors.As(err, &nr) {
		t.Fatalf("error %v, want a NotReadyError", err)
	}
	t.Log(err)
	if diff := cmp.Diff(object.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "stuck"}, nr.Object); diff != "" || nr.Status != "InProgress" {
		t.Errorf("not-ready %s, object (-want +got):\n%s", nr.Status, diff)
	}
	// kstatus' message, the Deployment's failing condition, and what its
	// pod says: the scheduler's reason.
	message := regexp.MustCompile(`^Available: 0/2; Available=False MinimumReplicasUnavailable: Deployment does not have minimum availability\.; ` +
		`pod stuck-[a-z0-9]+-[a-z0-9]+: PodScheduled=False Unschedulable: 0/2 nodes are available: 2 node\(s\) didn't match Pod's node affinity/selector\.`)
	if !message.MatchString(nr.Message) {
		t.Errorf("not-ready message %q, want it to match %s", nr.Message, message)
	}
	if want := "; still InProgress after waiting 2s"; !strings.HasSuffix(err.Error(), want) || !strings.HasPrefix(err.Error(), "Deployment/default/stuck not ready (InProgress): ") {
		t.Errorf("error %q, want it to name the object and end in %q", err, want)
	}
}

func TestApplyFailureNamesObject(t *testing.T) {
	a := newApplier(t)
	bad := obj(t, "apiVersion: example.com/v1\nkind: Nothing\nmetadata: {name: x, namespace: default}\n")
	res, err := a.Apply(context.Background(), []*unstructured.Unstructured{bad}, ApplyOptions{})
	if err == nil || res[0].Action != Failed || !strings.Contains(err.Error(), "Nothing/default/x") {
		t.Errorf("apply of an unknown kind: %v %+v", err, res)
	}
}
