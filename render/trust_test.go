package render

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// overlays writes two overlays, each of one ConfigMap named after it.
func overlays(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, name := range []string{"staging", "prod-real"} {
		writeFile(t, filepath.Join(root, "overlays", name, "kustomization.yaml"), "resources: [cm.yaml]\n")
		writeFile(t, filepath.Join(root, "overlays", name, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "+name+"}\n")
	}
	return root
}

func link(t *testing.T, target, name string) {
	t.Helper()
	_ = os.Remove(name)
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// TestCacheSymlinks: the cache key holds every symlink a render passed
// through, so a commit that only retargets a symlink renders again, and
// an entry made through a symlink is never served for a real directory.
func TestCacheSymlinks(t *testing.T) {
	t.Parallel()
	root := overlays(t)
	prod := filepath.Join(root, "overlays", "prod")
	r := &Renderer{}
	build := func() Result {
		t.Helper()
		res, err := r.Build(context.Background(), Source{Root: root, Index: indexTree(t, root), Domain: "trusted"}, "overlays/prod", DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	link(t, "staging", prod)
	if got := build().Objects[0].GetName(); got != "staging" {
		t.Fatalf("through the symlink to staging: %s", got)
	}
	if _, ok := build().Inputs["overlays/prod"]; !ok {
		t.Error("the symlink overlays/prod is not among the render's inputs")
	}
	link(t, "prod-real", prod)
	if res := build(); res.Cached || res.Objects[0].GetName() != "prod-real" {
		t.Fatalf("after retargeting the symlink: cached %v, object %s", res.Cached, res.Objects[0].GetName())
	}
	// The link replaced by a real directory with the same files as the
	// staging overlay it pointed at: the entry made through the link
	// must not serve it either.
	link(t, "staging", prod)
	build()
	if err := os.Remove(prod); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(prod, "kustomization.yaml"), "resources: [../prod-real/cm.yaml]\n")
	if res := build(); res.Cached || res.Objects[0].GetName() != "prod-real" {
		t.Fatalf("a real directory after the link: cached %v, object %s", res.Cached, res.Objects[0].GetName())
	}
}

// TestCacheTrustDomains: a render made for an untrusted snapshot (a pull
// request) never fills what a trusted one reads, even when every input
// has the same hash.
func TestCacheTrustDomains(t *testing.T) {
	t.Parallel()
	root := overlays(t)
	r := &Renderer{}
	src := Source{Root: root, Index: indexTree(t, root), Domain: "untrusted"}
	if _, err := r.Build(context.Background(), src, "overlays/staging", DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	src.Domain = "trusted"
	res, err := r.Build(context.Background(), src, "overlays/staging", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Cached || r.Builds() != 2 {
		t.Fatalf("the trusted render was served from the untrusted one's entry (cached %v, %d builds)", res.Cached, r.Builds())
	}
	if res, _ := r.Build(context.Background(), src, "overlays/staging", DefaultOptions()); !res.Cached {
		t.Error("the trusted render's own entry is not reused")
	}
}
