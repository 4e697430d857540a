package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// TestArgoRepositoryFromInitToRollout: a repository kept as Argo CD's
// guide keeps an app of apps (argocd/apps: Applications platform, wave 0,
// and shop, wave 1, for paths of this repository) goes from roleout init
// to run --once with no edit: one app per Application (path, destination
// namespace, automated prune), shop depending on platform for its lower
// wave, shop's objects' sync waves as roles in wave order (the Namespace
// of wave -1 goes to the prerequisite step), and the PreSync hook listed
// as untranslated; the rollout applies platform first, then shop's waves
// in order.
func TestArgoRepositoryFromInitToRollout(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "argo")
	files := fixtureFiles(t, "testdata/argo-repo")
	for p, c := range files {
		files[p] = strings.ReplaceAll(c, "REPO_URL", repo.URL())
	}
	head, err := repo.Commit("main", "argo", files)
	if err != nil {
		t.Fatal(err)
	}
	res := runInit(t, repo.URL())
	apps := res.byName
	for _, a := range res.Apps {
		if len(a.Needs) > 0 {
			t.Errorf("app %s needs %v", a.Name, a.Needs)
		}
	}
	shop := apps["shop"]
	if len(res.Apps) != 2 || shop.Namespace != "argo-shop" || !shop.Prune || !slices.Equal(shop.DependsOn, []string{"platform"}) {
		t.Fatalf("apps: %+v", res.Apps)
	}
	var roles []string
	for _, r := range shop.Roles {
		roles = append(roles, r.Name+":"+string(rune('0'+r.UpgradeOrder)))
	}
	if got, want := strings.Join(roles, " "), "wave-0:1 wave-1:2 wave-2:3"; got != want {
		t.Errorf("shop's roles %s, want %s", got, want)
	}
	if !slices.ContainsFunc(res.Untranslated, func(s string) bool { return strings.Contains(s, "ConfigMap/migrations is an Argo CD PreSync hook") }) {
		t.Errorf("untranslated %v does not name the hook", res.Untranslated)
	}

	cfg := writeInitConfig(t, res, "")
	if code, _, logs := cli("run", "--once", "--config", cfg); code != exitOK {
		t.Fatalf("run --once: exit %d:\n%s", code, logs)
	}
	for _, app := range []string{"platform", "shop"} {
		if st := readStatus(t, repo, app); st.Phase != status.PhaseSucceeded || st.SourceRevision != "main@sha1:"+head {
			t.Errorf("%s: %s %q", app, st.Phase, st.Message)
		}
	}
	if got := roleSummary(readStatus(t, repo, "shop")); got != "wave-0:Applied:1 wave-1:Applied:1 wave-2:Applied:1" {
		t.Errorf("shop's roles after the rollout: %s", got)
	}
}
