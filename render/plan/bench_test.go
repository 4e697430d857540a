package plan

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/render/schema"
)

// benchPlanObjects is a plan's worth of objects read without a render:
// 40 Deployments, 10 Services, 10 ConfigMaps and 5 StatefulSets in 4
// roles, and the LeaderWorkerSets and StormServices of
// testdata/custom-workloads (their CRDs built in).
func benchPlanObjects(b *testing.B) []*unstructured.Unstructured {
	b.Helper()
	var docs strings.Builder
	for i := range 40 {
		fmt.Fprintf(&docs, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d%d, namespace: llm, labels: {app: d%d}, annotations: {roleout.dev/role: r%d}}\n"+
			"spec:\n  selector: {matchLabels: {app: d%d}}\n  template:\n    metadata: {labels: {app: d%d}}\n"+
			"    spec: {containers: [{name: c, image: \"img:%d\", ports: [{containerPort: 8080}], env: [{name: A, value: b}], resources: {requests: {cpu: 100m, memory: 64Mi}}}]}\n", i, i, i%4, i, i, i)
	}
	for i := range 10 {
		fmt.Fprintf(&docs, "---\napiVersion: v1\nkind: Service\nmetadata: {name: s%d, namespace: llm, annotations: {roleout.dev/role: r%d}}\nspec: {selector: {app: d%d}, ports: [{port: 80, targetPort: 8080}]}\n", i, i%4, i)
		fmt.Fprintf(&docs, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d, namespace: llm, annotations: {roleout.dev/role: r%d}}\ndata: {config.yaml: \"a: %d\"}\n", i, i%4, i)
	}
	for i := range 5 {
		fmt.Fprintf(&docs, "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: st%d, namespace: llm, annotations: {roleout.dev/role: r%d}}\n"+
			"spec:\n  serviceName: st%d\n  selector: {matchLabels: {app: st%d}}\n  template:\n    metadata: {labels: {app: st%d}}\n"+
			"    spec: {containers: [{name: db, image: \"postgres:16\", ports: [{containerPort: 5432}]}]}\n", i, i%4, i, i, i)
	}
	objs := decodeDocs(b, docs.String())
	for _, f := range []string{"leaderworkersets.yaml", "stormservices.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "custom-workloads", f))
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range decodeDocs(b, string(data)) {
			o.SetNamespace("llm")
			objs = append(objs, o)
		}
	}
	return objs
}

// decodeDocs decodes a YAML stream into objects.
func decodeDocs(b *testing.B, docs string) []*unstructured.Unstructured {
	b.Helper()
	var out []*unstructured.Unstructured
	d := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(docs), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); err == io.EOF {
			return out
		} else if err != nil {
			b.Fatal(err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// BenchmarkNewPlan plans 69 objects, 49 of them workloads (Deployments,
// StatefulSets, LeaderWorkerSets, StormServices), with no history: what
// every plan, preview and agent cycle pays once the render is done
// (plan), and the part of it that checks the objects as the API server
// would (validate).
func BenchmarkNewPlan(b *testing.B) {
	objs := benchPlanObjects(b)
	b.Run("plan", func(b *testing.B) {
		opts := Options{App: "bench", Masker: secrets.Ephemeral()}
		for b.Loop() {
			if _, err := New(objs, opts, Facts{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			if _, err := checkObjects(objs, schema.Sources{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
