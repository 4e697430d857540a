package agent

import (
	"context"
	"testing"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/statusstore"
)

// TestRenderCacheWithGitIndex renders from real git snapshots: a commit
// that changes nothing the overlay reads reuses the render; a commit that
// changes a base file renders again.
func TestRenderCacheWithGitIndex(t *testing.T) {
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "config")
	files := map[string]string{
		"base/kustomization.yaml":     "resources: [cm.yaml]\n",
		"base/cm.yaml":                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: info}\n",
		"apps/web/kustomization.yaml": "resources: [../../base]\n",
		"apps/db/kustomization.yaml":  "resources: [../../base]\nnamePrefix: db-\n",
	}
	if _, err := repo.Commit("main", "first", files); err != nil {
		t.Fatal(err)
	}
	src, err := sources.NewGitSource(sources.Options{URL: repo.URL(), Ref: sources.Ref{Branch: "main"}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := newKustomizeRenderer(0, nil)
	app := config.App{Name: "web", Path: "apps/web"}
	ctx := context.Background()
	render := func(msg string, change map[string]string) string {
		t.Helper()
		if change != nil {
			if _, err := repo.Commit("main", msg, change); err != nil {
				t.Fatal(err)
			}
		}
		snap, err := src.Fetch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := r.Render(ctx, snap, app)
		if err != nil {
			t.Fatal(err)
		}
		return objs[0].Object["data"].(map[string]any)["level"].(string)
	}
	render("first", nil)
	render("unrelated", map[string]string{"README.md": "docs\n", "apps/db/kustomization.yaml": "resources: [../../base]\nnamePrefix: x-\n"})
	if n := builds(r); n != 1 {
		t.Errorf("kustomize builds after a commit outside the inputs = %d, want 1", n)
	}
	if level := render("base change", map[string]string{"base/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: debug}\n"}); level != "debug" {
		t.Errorf("level = %s after the base changed", level)
	}
	if n := builds(r); n != 2 {
		t.Errorf("kustomize builds after a base change = %d, want 2", n)
	}
}

// TestIdlePollMakesOneRequest runs the agent twice on an unchanged
// repository: the second poll lists the remote's refs once and fetches,
// renders, reads and writes nothing.
func TestIdlePollMakesOneRequest(t *testing.T) {
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "idle")
	if _, err := repo.Commit("main", "first", map[string]string{
		"apps/web/kustomization.yaml": "resources: [cm.yaml]\n",
		"apps/web/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: web}\n",
	}); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte(`apiVersion: roleout.dev/v1alpha1
kind: AgentConfig
source: {url: `+repo.URL()+`, branch: main}
cacheDir: `+t.TempDir()+`
apps: [{name: web, path: apps/web, namespace: web}]
`), "agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src, err := sources.NewGitSource(sourceOptions(cfg))
	if err != nil {
		t.Fatal(err)
	}
	renderer := newKustomizeRenderer(0, nil)
	applier := &fakeApplier{}
	a := NewWithDeps(cfg, Deps{Fetcher: src, Renderer: renderer, Planner: rolePlanner{}, Cluster: applier,
		Status: statusstore.New(StatusOptions(cfg))}, quietLogger())
	ctx := context.Background()
	if err := a.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	srv.ResetCounts()
	applied := len(applier.applied)
	if err := a.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	got := srv.Counts("idle")
	if got[testgit.RefsUpload] != 1 || got[testgit.UploadPack] != 0 || got[testgit.RefsReceive] != 0 || got[testgit.ReceivePack] != 0 {
		t.Errorf("idle poll requests = %v, want one ref listing and nothing else", got)
	}
	if builds(renderer) != 1 || len(applier.applied) != applied {
		t.Errorf("idle poll rendered (%d builds) or applied (%d objects)", builds(renderer), len(applier.applied)-applied)
	}
}

// builds returns how many kustomize builds k's renderer has run.
func builds(k *kustomizeRenderer) int { return k.Builds() }
