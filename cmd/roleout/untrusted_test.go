package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/internal/hostile"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// TestHostilePullRequests: one pull request carries a YAML alias bomb,
// another a generator that fetches an internal URL. Neither stops the
// agent: their previews say which limit refused them, the URL's server
// gets no request, the agent's own memory stays put, and a commit on the
// watched branch still rolls out in the same run.
func TestHostilePullRequests(t *testing.T) {
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	var requests atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		_, _ = w.Write([]byte("instance-credentials"))
	}))
	defer internal.Close()

	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "hostile")
	kust := "namespace: calm\nresources:\n- ns.yaml\n- cm.yaml\n"
	cm := func(v string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {v: \"" + v + "\"}\n"
	}
	base, err := repo.Commit("main", "calm app", map[string]string{
		"apps/calm/kustomization.yaml": kust,
		"apps/calm/ns.yaml":            "apiVersion: v1\nkind: Namespace\nmetadata: {name: calm}\n",
		"apps/calm/cm.yaml":            cm("1"),
	})
	if err != nil {
		t.Fatal(err)
	}
	pr := func(n int, files map[string]string) {
		t.Helper()
		branch := fmt.Sprintf("pr/%d", n)
		if err := repo.SetRef("refs/heads/"+branch, base); err != nil {
			t.Fatal(err)
		}
		sha, err := repo.Commit(branch, "hostile", files)
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.PullRequest(n, sha); err != nil {
			t.Fatal(err)
		}
	}
	pr(1, map[string]string{"apps/calm/kustomization.yaml": kust + "- bomb.yaml\n", "apps/calm/bomb.yaml": hostile.AliasBomb("bomb")})
	pr(2, map[string]string{"apps/calm/kustomization.yaml": kust + "configMapGenerator:\n- name: stolen\n  files: [creds=" + internal.URL + "/latest/meta-data]\n"})
	if _, err := repo.Commit("main", "settings v2", map[string]string{"apps/calm/cm.yaml": cm("2")}); err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, repo.URL(), "- {name: calm, path: apps/calm, render: {maxMemoryBytes: 536870912, remoteHosts: [127.0.0.1]}}\n")
	setPullRequests(t, config, "")

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("run --once exit %d:\n%s", code, logs)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapSys) - int64(before.HeapSys); grown > 256<<20 {
		t.Errorf("the agent's heap grew by %d MiB while a preview rendered an alias bomb", grown>>20)
	}
	got, err := cs.CoreV1().ConfigMaps("calm").Get(context.Background(), "settings", metav1.GetOptions{})
	if err != nil || got.Data["v"] != "2" {
		t.Fatalf("the watched branch's commit did not roll out beside the hostile previews: %v %v", got.Data, err)
	}
	for ref, want := range map[string]string{
		"pull-1-head": "render used more than 512 MiB of memory (limit maxMemory)",
		"pull-2-head": "is not in render.remoteHosts of the app (previews never fetch)",
	} {
		js, err := repo.Show("roleout/status", "calm/previews/"+ref+".json")
		if err != nil {
			t.Fatalf("no preview %s: %v", ref, err)
		}
		var p status.Preview
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Error, want) {
			t.Errorf("preview %s: error %q, want %q", ref, p.Error, want)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("a preview fetched the internal URL %d times (the app allows the host; previews never fetch)", n)
	}
	if hits, _ := repo.Grep("roleout/status", "instance-credentials"); len(hits) > 0 {
		t.Errorf("the internal URL's answer reached the status branch: %v", hits)
	}
}

// setPullRequests makes the agent config at path preview refs/pull/*/head,
// as serviceAccount when it is not empty.
func setPullRequests(t *testing.T, path, serviceAccount string) {
	t.Helper()
	pr := `pullRequests: {refs: ["refs/pull/*/head"]}, `
	if serviceAccount != "" {
		pr = `pullRequests: {refs: ["refs/pull/*/head"], serviceAccount: ` + serviceAccount + `}, `
	}
	rewriteFile(t, path, func(s string) string { return strings.Replace(s, "source: {", "source: {"+pr, 1) })
}

// rewriteFile replaces the content of path with edit's result.
func rewriteFile(t *testing.T, path string, edit func(string) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
}
