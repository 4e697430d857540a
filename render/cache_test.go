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
)

// diskIndex hashes a directory tree the way git's tree index would
// identify it: a file by its content, a directory by its listing and its
// children's hashes. It stands in for sources.TreeHashes.
type diskIndex map[string]string

func (d diskIndex) Hash(p string) (string, bool) { h, ok := d[p]; return h, ok }

func indexTree(t testing.TB, root string) diskIndex {
	t.Helper()
	idx := diskIndex{}
	var walk func(rel string) string
	walk = func(rel string) string {
		full := filepath.Join(root, filepath.FromSlash(rel))
		info, err := os.Stat(full)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.New()
		if info.IsDir() {
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
		} else {
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

// TestBuildConcurrentApps renders 20 apps at once; run with -race it
// proves kustomize's global state is guarded.
func TestBuildConcurrentApps(t *testing.T) {
	root := t.TempDir()
	for i := range 20 {
		dir := fmt.Sprintf("apps/app%02d", i)
		writeFile(t, filepath.Join(root, dir, "kustomization.yaml"), "resources: [d.yaml]\nnamespace: ns"+fmt.Sprint(i)+"\ncommonLabels: {app: a"+fmt.Sprint(i)+"}\n")
		writeFile(t, filepath.Join(root, dir, "d.yaml"), baseDeployment)
	}
	r := &Renderer{}
	var wg sync.WaitGroup
	errs := make([]error, 20)
	names := make([]string, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Build(context.Background(), Source{Root: root}, fmt.Sprintf("apps/app%02d", i), DefaultOptions())
			errs[i] = err
			if err == nil {
				names[i] = res.Objects[0].GetNamespace() + "/" + res.Objects[0].GetLabels()["app"]
			}
		}()
	}
	wg.Wait()
	for i := range 20 {
		if errs[i] != nil {
			t.Errorf("app %d: %v", i, errs[i])
		} else if want := fmt.Sprintf("ns%d/a%d", i, i); names[i] != want {
			t.Errorf("app %d rendered %s, want %s", i, names[i], want)
		}
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
