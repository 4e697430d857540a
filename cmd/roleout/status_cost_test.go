package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// costApps is how many apps TestStatusCostsWhatChanged keeps on the
// status branch: enough that the branch is several times the bound a
// change may cost.
const costApps = 120

// costFiles returns the repository's files: costApps apps of one
// ConfigMap each in namespace ns, app 0's at tag0 and the others' at tag.
func costFiles(ns, tag, tag0 string) map[string]string {
	files := map[string]string{}
	for i := range costApps {
		app := fmt.Sprintf("cost-%d", i)
		v := tag
		if i == 0 {
			v = tag0
		}
		files["apps/"+app+"/kustomization.yaml"] = "namespace: " + ns + "\nresources: [config.yaml]\n"
		files["apps/"+app+"/config.yaml"] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, annotations: {roleout.dev/role: config}}\ndata: {tag: %q, filler: %q}\n",
			app, v, strings.Repeat(app, 100))
	}
	return files
}

// TestStatusCostsWhatChanged installs costApps apps with run --once, so
// that the status branch holds every app's records, then changes one app:
// the second run --once fetches only the source's new commit (the agent's
// copy of the status branch in its cacheDir is at the head it pushed) and
// each status push carries only its own objects. A third run with nothing
// changed lists refs and fetches nothing.
func TestStatusCostsWhatChanged(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	ns := fmt.Sprintf("cost-%d", time.Now().UnixNano()%1e9)
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "cost")
	files := costFiles(ns, "v1", "v1")
	files["apps/ns/namespace.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + ns + "}\n"
	files["apps/ns/kustomization.yaml"] = "resources: [namespace.yaml]\n"
	if _, err := repo.Commit("main", "v1", files); err != nil {
		t.Fatal(err)
	}
	apps := "- {name: ns, path: apps/ns}\n"
	for i := range costApps {
		apps += fmt.Sprintf("- {name: cost-%d, path: apps/cost-%d, namespace: %s, dependsOn: [ns]}\n", i, i, ns)
	}
	config := writeConfig(t, repo.URL(), apps)
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("install: run --once exit %d:\n%s", code, logs)
	}
	branch := repoBytes(t, repo, "roleout/status")

	srv.ResetCounts()
	head, err := repo.Commit("main", "v2 of cost-0", costFiles(ns, "v1", "v2"))
	if err != nil {
		t.Fatal(err)
	}
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("one app changed: run --once exit %d:\n%s", code, logs)
	}
	if st := readStatus(t, repo, "cost-0"); st.Phase != "Succeeded" || roleSummary(st) != "config:Applied:2" {
		t.Errorf("cost-0 after its change: %s %s", st.Phase, roleSummary(st))
	}
	// Every app records the new source revision, but only cost-0's
	// rollout applied anything: the others' records wait for the end of
	// the pass and go in together (agent/late.go), a few commits for all.
	// None of them clones the branch (a clone per read and per write was
	// 2 × costApps × the branch), and the only fetch of the status branch
	// would be another writer's commits. The whole run costs the git
	// server at most 64 KiB of status.
	fetched, pushed := srv.Bytes("cost", testgit.UploadPack), srv.Bytes("cost", testgit.ReceivePack)
	c := srv.Counts("cost")
	t.Logf("status branch %d bytes; one app changed: %d bytes fetched in %d fetches, %d bytes pushed in %d pushes (%d per push)",
		branch, fetched, c[testgit.UploadPack], pushed, c[testgit.ReceivePack], pushed/int64(max(c[testgit.ReceivePack], 1)))
	if c[testgit.UploadPack] > 1 || fetched > 64<<10 {
		t.Errorf("one app's change made %d fetches of %d bytes, want one (the source's commit) of at most 64 KiB: the status branch is fetched again", c[testgit.UploadPack], fetched)
	}
	// 3 pushes of 41 KB on a quiet machine (the changed app's two, and
	// every other app's record together); beside the race suite the pass
	// is slow enough that held records are written in more parts (one a
	// minute, agent/late.go), each a root tree more.
	if pushed > 64<<10 || c[testgit.ReceivePack] > 8 {
		t.Errorf("%d pushes sent %d bytes, want at most 8 pushes (not one per app) and 64 KiB in all", c[testgit.ReceivePack], pushed)
	}
	for i := range costApps {
		app := fmt.Sprintf("cost-%d", i)
		if st := readStatus(t, repo, app); st.SourceRevision != "main@sha1:"+head || st.Phase != "Succeeded" {
			t.Errorf("%s records %s %s, want Succeeded at the new commit", app, st.Phase, st.SourceRevision)
		}
	}

	srv.ResetCounts()
	if code, _, logs := cli("run", "--once", "--config", config); code != exitOK {
		t.Fatalf("nothing changed: run --once exit %d:\n%s", code, logs)
	}
	if c := srv.Counts("cost"); c[testgit.UploadPack] != 0 || c[testgit.ReceivePack] != 0 {
		t.Errorf("a run with nothing changed made %v, want ref listings only", c)
	}
}

// repoBytes returns the size of the objects reachable from rev, as git
// packs them.
func repoBytes(t *testing.T, repo *testgit.Repo, rev string) int64 {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", repo.BarePath(), "rev-list", "--objects", "--disk-usage", rev).Output()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if _, err := fmt.Sscan(strings.TrimSpace(string(out)), &n); err != nil {
		t.Fatalf("git rev-list --disk-usage: %q: %v", out, err)
	}
	return n
}
