package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// diskIndex hashes a directory tree the way git's tree index would
// identify it: a symlink by its target (git stores it as a blob of the
// target), a file by its content, a directory by its listing and its
// children's hashes. It stands in for sources.TreeHashes.
type diskIndex map[string]string

func (d diskIndex) Hash(p string) (string, bool) { h, ok := d[p]; return h, ok }

func indexTree(t testing.TB, root string) diskIndex {
	t.Helper()
	idx := diskIndex{}
	var walk func(rel string) string
	walk = func(rel string) string {
		full := filepath.Join(root, filepath.FromSlash(rel))
		info, err := os.Lstat(full)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.New()
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(full)
			fmt.Fprintf(sum, "link %s", target)
		case info.IsDir():
			entries, _ := os.ReadDir(full)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			sort.Strings(names)
			for _, n := range names {
				child := strings.TrimPrefix(rel+"/"+n, "/")
				fmt.Fprintf(sum, "%s %s\n", n, walk(child))
			}
		default:
			data, _ := os.ReadFile(full)
			sum.Write(data)
		}
		h := hex.EncodeToString(sum.Sum(nil))
		idx[rel] = h
		return h
	}
	walk("")
	return idx
}

func cacheFixture(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range map[string]string{
		"base/kustomization.yaml":       "resources: [cm.yaml]\n",
		"base/cm.yaml":                  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: info}\n",
		"apps/web/kustomization.yaml":   "resources: [../../base]\nnamePrefix: web-\n",
		"apps/other/kustomization.yaml": "resources: [../../base]\nnamePrefix: other-\n",
		"README.md":                     "hello\n",
	} {
		writeFile(t, filepath.Join(root, filepath.FromSlash(p)), c)
	}
	return root
}

func TestBuildCacheByInputs(t *testing.T) {
	t.Parallel()
	root := cacheFixture(t)
	r := &Renderer{}
	ctx := context.Background()
	build := func() Result {
		t.Helper()
		res, err := r.Build(ctx, Source{Root: root, Index: indexTree(t, root)}, "apps/web", DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := build()
	if first.Cached || r.Builds() != 1 || first.Inputs["base/cm.yaml"] == "" || first.Inputs["apps/web/kustomization.yaml"] == "" {
		t.Fatalf("first build: cached %v, builds %d, inputs %v", first.Cached, r.Builds(), first.Inputs)
	}
	if _, ok := first.Inputs["README.md"]; ok {
		t.Errorf("README.md is not an input of apps/web: %v", first.Inputs)
	}

	writeFile(t, filepath.Join(root, "README.md"), "changed\n")
	writeFile(t, filepath.Join(root, "apps/other/kustomization.yaml"), "resources: [../../base]\nnamePrefix: x-\n")
	second := build()
	if !second.Cached || r.Builds() != 1 {
		t.Errorf("a change outside the inputs rebuilt: cached %v, builds %d", second.Cached, r.Builds())
	}
	second.Objects[0].SetName("mutated")
	if third := build(); third.Objects[0].GetName() != "web-settings" {
		t.Errorf("the cache handed out shared objects: %s", third.Objects[0].GetName())
	}

	writeFile(t, filepath.Join(root, "base/cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: debug}\n")
	fourth := build()
	if fourth.Cached || r.Builds() != 2 {
		t.Errorf("a change of a base file was served from the cache: cached %v, builds %d", fourth.Cached, r.Builds())
	}
	if lvl := fourth.Objects[0].Object["data"].(map[string]any)["level"]; lvl != "debug" {
		t.Errorf("level = %v, want the new debug", lvl)
	}
}

// widgetSchema is a custom OpenAPI schema (a kustomization's openapi
// field) that makes a Widget's spec.items merge by name in a strategic
// merge patch; without it kustomize replaces the list.
const widgetSchema = `{"definitions": {
  "com.example.v1.Widget": {"type": "object",
    "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
      "spec": {"$ref": "#/definitions/com.example.v1.WidgetSpec"}},
    "x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "Widget", "version": "v1"}]},
  "com.example.v1.WidgetSpec": {"type": "object",
    "properties": {"items": {"type": "array", "items": {"$ref": "#/definitions/com.example.v1.Item"},
      "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"}}},
  "com.example.v1.Item": {"type": "object", "properties": {"name": {"type": "string"}}}
}}`

// widgetApp writes an app of baseDeployment and a Widget (items [a])
// patched with items [b]: with the custom schema the patch merges (b,a),
// without it the patch replaces (b).
func widgetApp(t testing.TB, root, dir string, withSchema bool) {
	t.Helper()
	k := "resources: [d.yaml, w.yaml]\npatches: [{path: p.yaml}]\n"
	if withSchema {
		k += "openapi: {path: schema.json}\n"
		writeFile(t, filepath.Join(root, dir, "schema.json"), widgetSchema)
	}
	writeFile(t, filepath.Join(root, dir, "w.yaml"), "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {items: [{name: a}]}\n")
	writeFile(t, filepath.Join(root, dir, "p.yaml"), "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {items: [{name: b}]}\n")
	writeFile(t, filepath.Join(root, dir, "d.yaml"), baseDeployment)
	writeFile(t, filepath.Join(root, dir, "kustomization.yaml"), k)
}

// TestBuildConcurrentApps renders 20 apps at once, half of them with a
// custom OpenAPI schema; run with -race it proves kustomize's global
// state is guarded, and each app's result proves the schema of one app
// never leaks into another's render.
func TestBuildConcurrentApps(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	want := make([]string, 20)
	for i := range 20 {
		dir := fmt.Sprintf("apps/app%02d", i)
		widgetApp(t, root, dir, i%2 == 0)
		k, _ := os.ReadFile(filepath.Join(root, dir, "kustomization.yaml"))
		writeFile(t, filepath.Join(root, dir, "kustomization.yaml"), string(k)+"namespace: ns"+fmt.Sprint(i)+"\ncommonLabels: {app: a"+fmt.Sprint(i)+"}\n")
		want[i] = fmt.Sprintf("ns%d/a%d items b", i, i)
		if i%2 == 0 {
			want[i] += ",a"
		}
	}
	r := &Renderer{}
	var wg sync.WaitGroup
	got := make([]string, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Build(context.Background(), Source{Root: root}, fmt.Sprintf("apps/app%02d", i), DefaultOptions())
			if err != nil {
				got[i] = err.Error()
				return
			}
			got[i] = res.Objects[0].GetNamespace() + "/" + res.Objects[0].GetLabels()["app"] + " items " + widgetItems(res.Objects)
		}()
	}
	wg.Wait()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("renders (-want +got):\n%s", diff)
	}
}

// widgetItems returns the item names of the Widget among objs.
func widgetItems(objs []*unstructured.Unstructured) string {
	var names []string
	for _, o := range objs {
		if o.GetKind() != "Widget" {
			continue
		}
		items, _, _ := unstructured.NestedSlice(o.Object, "spec", "items")
		for _, it := range items {
			names = append(names, fmt.Sprint(it.(map[string]any)["name"]))
		}
	}
	return strings.Join(names, ",")
}

// TestBuildPanicBecomesError provokes two panics inside kustomize with a
// broken custom OpenAPI schema: each is an error naming the overlay, and
// the next render, with or without a schema, is unaffected.
func TestBuildPanicBecomesError(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, schema, wantErr string
	}{
		{"schema that is not JSON", "{not json", "kustomize build app: kustomize panicked: invalid schema file"},
		{"kind without a version", `{"definitions": {"w": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "Widget"}]}}}`,
			"kustomize build app: kustomize panicked: interface conversion"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			widgetApp(t, root, "app", true)
			writeFile(t, filepath.Join(root, "app/schema.json"), tc.schema)
			widgetApp(t, root, "with", true)
			widgetApp(t, root, "without", false)
			r := &Renderer{}
			_, err := r.Build(context.Background(), Source{Root: root}, "app", DefaultOptions())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			got := map[string]string{}
			for _, app := range []string{"without", "with"} {
				res, err := r.Build(context.Background(), Source{Root: root}, app, DefaultOptions())
				if err != nil {
					t.Fatalf("%s after the panic: %v", app, err)
				}
				got[app] = widgetItems(res.Objects)
			}
			if diff := cmp.Diff(map[string]string{"without": "b", "with": "b,a"}, got); diff != "" {
				t.Errorf("renders after the panic (-want +got):\n%s", diff)
			}
		})
	}
}

func BenchmarkBuild(b *testing.B) {
	root := cacheFixture(b)
	idx := indexTree(b, root)
	ctx := context.Background()
	b.Run("kustomize", func(b *testing.B) {
		for b.Loop() {
			if _, err := (&Renderer{}).Build(ctx, Source{Root: root}, "apps/web", DefaultOptions()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cache-hit", func(b *testing.B) {
		r := &Renderer{}
		if _, err := r.Build(ctx, Source{Root: root, Index: idx}, "apps/web", DefaultOptions()); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			res, err := r.Build(ctx, Source{Root: root, Index: idx}, "apps/web", DefaultOptions())
			if err != nil || !res.Cached {
				b.Fatal(err, res.Cached)
			}
		}
	})
}
