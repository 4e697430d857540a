package revision

import (
	"fmt"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/controller/history"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/testobjects"
)

func hash(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	h, err := TemplateHash(objs, testMasker)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

const (
	block = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: web
  labels: {app: api}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: api
        image: api:1.0
`
	// flow is block with other key order, flow style and a comment.
	flow = `# the API
kind: Deployment
spec: {template: {spec: {containers: [{image: "api:1.0", name: api}]}}, replicas: 2}
metadata: {namespace: web, labels: {app: api}, name: api}
apiVersion: apps/v1
`
	// live is block as the API server returns it.
	live = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: web
  labels: {app: api}
  uid: 0b5e
  resourceVersion: "42"
  generation: 3
  creationTimestamp: "2026-11-29T10:00:00Z"
  managedFields: [{manager: roleout}]
  annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}"}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: api
        image: api:1.0
status: {replicas: 2}
`
	cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: api, namespace: web}\ndata: {a: '1'}\n"
)

func TestTemplateHashIgnoresForm(t *testing.T) {
	want := hash(t, testobjects.Parse(t, block, cm))
	for name, objs := range map[string][]*unstructured.Unstructured{
		"flow style, key order, comment": testobjects.Parse(t, flow, cm),
		"server-owned fields and status": testobjects.Parse(t, live, cm),
		"other object order":             testobjects.Parse(t, cm, block),
	} {
		if got := hash(t, objs); got != want {
			t.Errorf("%s: hash %s, want %s", name, got, want)
		}
	}
}

func TestTemplateHashStableAcrossShuffles(t *testing.T) {
	var docs []string
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		docs = append(docs, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "+n+", namespace: web}\ndata: {k: "+n+"}\n")
	}
	objs := testobjects.Parse(t, append(docs, block)...)
	want := hash(t, objs)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		r.Shuffle(len(objs), func(i, j int) { objs[i], objs[j] = objs[j], objs[i] })
		if got := hash(t, objs); got != want {
			t.Fatalf("shuffle %d: hash %s, want %s", i, got, want)
		}
	}
}

func TestTemplateHashChangesWithMeaning(t *testing.T) {
	base := hash(t, testobjects.Parse(t, block, cm))
	seen := map[string]string{base: "base"}
	for name, objs := range map[string][]*unstructured.Unstructured{
		"image":         testobjects.Parse(t, replace(block, "api:1.0", "api:1.1"), cm),
		"replicas":      testobjects.Parse(t, replace(block, "replicas: 2", "replicas: 3"), cm),
		"label":         testobjects.Parse(t, replace(block, "{app: api}", "{app: api2}"), cm),
		"namespace":     testobjects.Parse(t, replace(block, "namespace: web", "namespace: web2"), cm),
		"configmap":     testobjects.Parse(t, block, replace(cm, "'1'", "'2'")),
		"object gone":   testobjects.Parse(t, block),
		"string vs int": testobjects.Parse(t, block, replace(cm, "'1'", "1")),
	} {
		h := hash(t, objs)
		if prev, dup := seen[h]; dup {
			t.Errorf("%s: hash %s equals that of %s", name, h, prev)
		}
		seen[h] = name
	}
}

func TestTemplateHashEncoding(t *testing.T) {
	h := hash(t, testobjects.Parse(t, block))
	if !regexp.MustCompile(`^[bcdfghjklmnpqrstvwxz2456789]{1,10}$`).MatchString(h) {
		t.Errorf("hash %q is not rand.SafeEncodeString of a decimal FNV-32 sum", h)
	}
	objs := testobjects.Parse(t, live)
	before := objs[0].GetResourceVersion()
	hash(t, objs)
	if objs[0].GetResourceVersion() != before || objs[0].Object["status"] == nil {
		t.Error("TemplateHash modified its input")
	}
}

func replace(s, old, new string) string {
	out := regexp.MustCompile(regexp.QuoteMeta(old)).ReplaceAllLiteralString(s, new)
	if out == s {
		panic("replace: " + old + " not found")
	}
	return out
}

// TestHashMatchesControllerRevision holds roleout's revision hash to the
// StatefulSet controller's history.HashControllerRevision, which it
// mirrors, over random data and collision counts; and to a recorded
// value, since a recorded revision's name must never change.
func TestHashMatchesControllerRevision(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		obj := map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprint("c", r.Uint64())}, "data": map[string]any{"k": strings.Repeat("x", r.IntN(300))}}
		norm := []map[string]any{obj}
		collisions := int32(r.IntN(4))
		got, err := hashNormalized(norm, collisions)
		if err != nil {
			t.Fatal(err)
		}
		data, err := canonicalData(norm)
		if err != nil {
			t.Fatal(err)
		}
		want := history.HashControllerRevision(&appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: data}}, &collisions)
		if got != want {
			t.Fatalf("case %d (collisions %d): hash %s, the controller's %s", i, collisions, got, want)
		}
	}
	got, err := hashNormalized([]map[string]any{{"kind": "ConfigMap", "metadata": map[string]any{"name": "a"}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	const recorded = "54b44f8f6b"
	if got != recorded {
		t.Errorf("hash of a fixed object %s, recorded as %s: a recorded revision's name would change", got, recorded)
	}
}
