package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// pathRolesConfig serves render/testdata/multibase (four bases without
// roleout annotations or tier labels, overlays/prod using them all) and
// returns a config whose app shop has one role per base by path, plus
// extra roles, going to an unreachable cluster.
func pathRolesConfig(t *testing.T, extra string) string {
	t.Helper()
	testcluster.Require(t, cluster) // writeConfig names its kubeconfig
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "shop")
	if _, err := repo.CommitDir("main", "the shop as it is", "../../render/testdata/multibase", ""); err != nil {
		t.Fatal(err)
	}
	return writeConfig(t, repo.URL(), `- name: shop
  path: overlays/prod
  namespace: shop
  kubeconfig: `+unreachableKubeconfig(t)+`
  roles:
  - {name: data, upgradeOrder: 1, paths: [bases/database]}
  - {name: cache, upgradeOrder: 2, paths: [bases/cache]}
  - {name: backend, upgradeOrder: 3, paths: [bases/backend]}
  - {name: frontend, upgradeOrder: 4, paths: [bases/frontend]}
`+extra)
}

// TestPlanRolesByPath: `roleout plan --config --app` orders a repository
// used as it is into four waves by the roles' paths, and what it renders
// carries neither roleout's source paths nor kustomize's origins.
func TestPlanRolesByPath(t *testing.T) {
	t.Parallel()
	config := pathRolesConfig(t, "")
	s := planJSON(t, "plan", "--config", config, "--app", "shop")
	var got []string
	for _, w := range s.Waves {
		for _, r := range w.Roles {
			var objs []string
			for _, o := range r.Objects {
				name := o.Name
				if strings.HasPrefix(name, "api-config-") {
					name = "api-config-*" // the generated ConfigMap, with its hash
				}
				objs = append(objs, o.Kind+"/"+name)
			}
			sort.Strings(objs)
			got = append(got, fmt.Sprintf("%d:%s:%s", w.UpgradeOrder, r.Name, strings.Join(objs, ",")))
		}
	}
	want := []string{
		"1:data:Service/postgres,StatefulSet/postgres",
		"2:cache:Deployment/redis,Service/redis",
		"3:backend:ConfigMap/api-config-*,Deployment/api,Service/api",
		"4:frontend:Deployment/web,Service/web",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waves (-want +got):\n%s", diff)
	}
	code, out, errOut := cli("plan", "--config", config, "--app", "shop")
	if code != exitOK {
		t.Fatalf("text plan: exit %d: %s", code, errOut)
	}
	last := -1
	for _, line := range []string{"wave 1 (upgradeOrder 1)\n  role data", "wave 2 (upgradeOrder 2)\n  role cache",
		"wave 3 (upgradeOrder 3)\n  role backend", "wave 4 (upgradeOrder 4)\n  role frontend"} {
		i := strings.Index(out, line)
		if i <= last {
			t.Errorf("text plan lacks %q after the waves before it:\n%s", line, out)
		}
		last = i
	}
	code, out, errOut = cli("render", "--config", config, "--app", "shop")
	if code != exitOK {
		t.Fatalf("render: exit %d: %s", code, errOut)
	}
	for _, leak := range []string{"internal.roleout.dev", "config.kubernetes.io/origin", "annotations"} {
		if strings.Contains(out, leak) {
			t.Errorf("the render carries %q:\n%s", leak, out)
		}
	}
}

// TestPlanRoleByPathMatchesNothing: a role whose path the overlay does
// not use fails the plan, naming the role, its criteria and the overlay.
func TestPlanRoleByPathMatchesNothing(t *testing.T) {
	t.Parallel()
	config := pathRolesConfig(t, "  - {name: queue, upgradeOrder: 5, paths: [bases/queue], kinds: [StatefulSet]}\n")
	code, out, errOut := cli("plan", "--config", config, "--app", "shop")
	if code != exitError || out != "" {
		t.Fatalf("exit %d, stdout %q; want exit %d", code, out, exitError)
	}
	for _, want := range []string{"plan overlays/prod", "role queue matches no object: kinds [StatefulSet], paths [bases/queue] matched nothing in the render"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q does not contain %q", errOut, want)
		}
	}
}
