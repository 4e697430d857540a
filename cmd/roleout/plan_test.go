package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/render"
)

func TestPlanLocalDir(t *testing.T) {
	t.Parallel()
	s := planJSON(t, "plan", "testdata/web")
	var got []string
	for _, w := range s.Waves {
		for _, r := range w.Roles {
			got = append(got, r.Name+"@"+r.RevisionName[:len("web-")+len(r.Name)])
			if !r.Changed || r.Action != "install" || r.RevisionNumber != 1 || r.Hash == "" || len(r.Objects) == 0 {
				t.Errorf("role %+v: want changed, action install, revision 1, a hash and objects", r)
			}
		}
	}
	if diff := cmp.Diff([]string{"db@web-db", "api@web-api", "worker@web-worker"}, got); diff != "" {
		t.Errorf("roles in apply order (-want +got):\n%s", diff)
	}
	if len(s.Prerequisites) != 1 || s.Prerequisites[0].Kind != "Namespace" || s.Prune == nil {
		t.Errorf("prerequisites %v, prune %v", s.Prerequisites, s.Prune)
	}

	code, out, _ := cli("plan", "testdata/web")
	for _, want := range []string{"prerequisites: Namespace/web", "wave 1 (upgradeOrder 1)", "role db", "wave 2 (upgradeOrder 2)", "role worker", " install ",
		"Deployment/web/worker → ReplicaSet worker-", "(restarts pods)"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("text plan lacks %q:\n%s", want, out)
		}
	}
}

func TestRenderLocalDir(t *testing.T) {
	t.Parallel()
	code, out, errOut := cli("render", "testdata/web")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	order := []string{"# prerequisites", "name: web", "# wave 1 (upgradeOrder 1), role db", "# wave 2 (upgradeOrder 2), role api", "# wave 2 (upgradeOrder 2), role worker"}
	last := -1
	for _, want := range order {
		i := strings.Index(out, want)
		if i < last {
			t.Errorf("%q missing or out of order in:\n%s", want, out)
		}
		last = i
	}
}

func TestPlanErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no dir", []string{"plan"}, "give a kustomize DIR"},
		{"missing dir", []string{"plan", "testdata/nothing"}, "not found"},
		{"config without app", []string{"plan", "--config", "x.yaml"}, "--app is required"},
		{"both", []string{"render", "testdata/web", "--config", "x.yaml", "--app", "a"}, "not both"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := cli(tc.args...)
			if code != exitError || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, exitError, tc.wantErr)
			}
		})
	}
}

func TestPlanExamples(t *testing.T) {
	t.Parallel()
	for dir, roles := range map[string]string{
		"../../examples/llm-serving/overlays/dev":      "prefill decode router",
		"../../examples/llm-serving/overlays/prod":     "prefill decode router",
		"../../examples/llm-serving/overlays/prod-lws": "prefill decode router",
		"../../examples/web-stack":                     "database api frontend",
	} {
		t.Run(dir, func(t *testing.T) {
			s := planJSON(t, "plan", dir)
			var got []string
			for _, w := range s.Waves {
				for _, r := range w.Roles {
					got = append(got, r.Name)
					if len(r.Workloads) != 1 || r.Workloads[0].Predicted.Equal(object.Identity{}) {
						t.Errorf("role %s: want one workload with a prediction, got %+v", r.Name, r.Workloads)
					}
				}
			}
			if strings.Join(got, " ") != roles {
				t.Errorf("roles in order = %v, want %s", got, roles)
			}
			if strings.HasSuffix(dir, "prod-lws") {
				var prereqs []string
				for _, p := range s.Prerequisites {
					prereqs = append(prereqs, p.Kind+"/"+p.Name)
				}
				if !contains(prereqs, "CustomResourceDefinition/leaderworkersets.leaderworkerset.x-k8s.io") {
					t.Errorf("prerequisites %v lack the LeaderWorkerSet CRD", prereqs)
				}
				decode := s.Waves[1].Roles[0].Workloads[0]
				if decode.Kind != "LeaderWorkerSet" || decode.Predicted.TemplateRevisionHash == "" {
					t.Errorf("decode in prod-lws = %+v, want a LeaderWorkerSet with a template-revision-hash", decode)
				}
			}
		})
	}
	// prod runs more replicas and another image tag than dev.
	objects := func(dir string) map[string]*unstructured.Unstructured {
		t.Helper()
		res, err := (&render.Renderer{}).Build(context.Background(), render.Source{Root: "../.."}, dir, render.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*unstructured.Unstructured{}
		for _, o := range res.Objects {
			out[o.GetKind()+"/"+o.GetName()] = o
		}
		return out
	}
	dev, prod := objects("examples/llm-serving/overlays/dev"), objects("examples/llm-serving/overlays/prod")
	for _, name := range []string{"Deployment/prefill", "Deployment/decode", "Deployment/router"} {
		dr, _, _ := unstructured.NestedInt64(dev[name].Object, "spec", "replicas")
		pr, _, _ := unstructured.NestedInt64(prod[name].Object, "spec", "replicas")
		if pr <= dr {
			t.Errorf("%s: prod replicas %d, dev %d: want more in prod", name, pr, dr)
		}
	}
	image := func(o *unstructured.Unstructured) string {
		cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		return cs[0].(map[string]any)["image"].(string)
	}
	if a, b := image(dev["Deployment/decode"]), image(prod["Deployment/decode"]); a == b {
		t.Errorf("decode runs %s in dev and prod: want another image tag in prod", a)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// unreachableKubeconfig writes a kubeconfig whose cluster cannot be
// reached: an app that uses it fails at its first request to a cluster.
func unreachableKubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "down.kubeconfig")
	if err := os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: down, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: down, context: {cluster: down, user: u}}]
current-context: down
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// planFromGitRepo serves testdata/web at apps/web (commit first), then a
// commit second on main that moves worker to 2.0, tags first v1 and
// branches old at it. It returns a function that writes a config with a
// cache of its own, whose app web goes to an unreachable cluster, so plan
// and render prove they ask nothing of one.
func planFromGitRepo(t *testing.T) (config func() string, first, second string) {
	t.Helper()
	config, _, first, second = planFromGitRepoOf(t)
	return config, first, second
}

// planFromGitRepoOf is planFromGitRepo with the repository.
func planFromGitRepoOf(t *testing.T) (config func() string, repo *testgit.Repo, first, second string) {
	t.Helper()
	// writeConfig names the test cluster's kubeconfig; the app's own
	// kubeconfig overrides it.
	testcluster.Require(t, cluster)
	_, repo, first = newSourceRepo(t)
	worker, err := os.ReadFile("testdata/web/worker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	second, err = repo.Commit("main", "worker 2.0", map[string]string{
		"apps/web/worker.yaml": strings.Replace(string(worker), "worker:1.0", "worker:2.0", 1),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag("v1", first); err != nil {
		t.Fatal(err)
	}
	if err := repo.SetRef("refs/heads/old", first); err != nil {
		t.Fatal(err)
	}
	down := unreachableKubeconfig(t)
	return func() string {
		return writeConfig(t, repo.URL(), "- {name: web, path: apps/web, kubeconfig: "+down+"}\n")
	}, repo, first, second
}

// TestPlanFromGit plans app web at each kind of ref, each from a cache
// of its own.
func TestPlanFromGit(t *testing.T) {
	t.Parallel()
	newConfig, first, second := planFromGitRepo(t)
	cases := []struct {
		name    string
		ref     []string
		wantRev string
		commit  string
	}{
		{"configured branch", nil, "main@sha1:" + second, second},
		{"a branch", []string{"--ref", "old"}, "old@sha1:" + first, first},
		{"a tag", []string{"--ref", "v1"}, "v1@sha1:" + first, first},
		{"a full ref name", []string{"--ref", "refs/heads/main"}, "@sha1:" + second, second},
		{"a commit", []string{"--ref", first}, "sha1:" + first, first},
	}
	// workerHash[commit] is the worker role's hash planned at commit:
	// the same for every ref to one commit, different between the two.
	workerHash := map[string]string{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			config := newConfig()
			s := planJSON(t, append([]string{"plan", "--config", config, "--app", "web"}, tc.ref...)...)
			var got []string
			for _, w := range s.Waves {
				for _, r := range w.Roles {
					got = append(got, fmt.Sprintf("%d:%s:%s:%d", w.UpgradeOrder, r.Name, r.Action, r.RevisionNumber))
					if r.RevisionName != "web-"+r.Name+"-"+r.Hash {
						t.Errorf("role %s revision name %q, want web-%s-%s", r.Name, r.RevisionName, r.Name, r.Hash)
					}
				}
			}
			if diff := cmp.Diff([]string{"1:db:install:1", "2:api:install:1", "2:worker:install:1"}, got); diff != "" {
				t.Fatalf("roles, no previous status (-want +got):\n%s", diff)
			}
			hash := s.Waves[len(s.Waves)-1].Roles[len(s.Waves[len(s.Waves)-1].Roles)-1].Hash
			if seen, ok := workerHash[tc.commit]; ok && seen != hash {
				t.Errorf("worker hash %s, want %s as for the other refs to %s", hash, seen, tc.commit)
			}
			workerHash[tc.commit] = hash
			code, out, errOut := cli(append([]string{"plan", "--config", config, "--app", "web"}, tc.ref...)...)
			if code != exitOK || !strings.Contains(out, "plan for app web at ") || !strings.Contains(out, tc.wantRev) {
				t.Errorf("text plan: exit %d, %s; want a header naming %s:\n%s", code, errOut, tc.wantRev, out)
			}
		})
	}
	if workerHash[first] == workerHash[second] {
		t.Errorf("worker has hash %s at both commits: the ref did not select the commit", workerHash[first])
	}
	for name, args := range map[string][]string{
		"unknown ref": {"--ref", "nothing"},
		"unknown app": {"--app", "other"},
	} {
		t.Run(name, func(t *testing.T) {
			full := append([]string{"plan", "--config", newConfig(), "--app", "web"}, args...)
			code, out, errOut := cli(full...)
			if code != exitError || out != "" || !strings.Contains(errOut, strings.Join(args[1:], "")) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d naming %q", code, out, errOut, exitError, args[1])
			}
		})
	}
	t.Run("the branch then its parent commit from one cache", func(t *testing.T) {
		// No branch or tag names parent: the branch plan leaves a depth-1
		// cache of child, which lacks parent.
		_, repo, parent := newSourceRepo(t)
		child, err := repo.Commit("main", "a readme", map[string]string{"apps/web/README.md": "web\n"})
		if err != nil {
			t.Fatal(err)
		}
		config := writeConfig(t, repo.URL(), "- {name: web, path: apps/web, kubeconfig: "+unreachableKubeconfig(t)+"}\n")
		for _, step := range []struct{ ref, wantRev string }{
			{"", "main@sha1:" + child},
			{parent, "sha1:" + parent},
		} {
			args := []string{"plan", "--config", config, "--app", "web"}
			if step.ref != "" {
				args = append(args, "--ref", step.ref)
			}
			code, out, errOut := cli(args...)
			if code != exitOK || !strings.Contains(out, "plan for app web at "+step.wantRev) {
				t.Errorf("%v: exit %d, %s; want a plan naming %s:\n%s", args[1:], code, errOut, step.wantRev, out)
			}
		}
	})
}

// TestRenderFromGit renders app web from git as YAML grouped by wave and
// role, and at a tag as JSON.
func TestRenderFromGit(t *testing.T) {
	t.Parallel()
	newConfig, _, _ := planFromGitRepo(t)
	config := newConfig()
	code, out, errOut := cli("render", "--config", config, "--app", "web")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	order := []string{"# prerequisites", "kind: Namespace", "# wave 1 (upgradeOrder 1), role db", "# wave 2 (upgradeOrder 2), role api",
		"# wave 2 (upgradeOrder 2), role worker", "image: registry.example/worker:2.0"}
	last := -1
	for _, want := range order {
		i := strings.Index(out, want)
		if i < 0 || i < last {
			t.Errorf("%q missing or out of order in:\n%s", want, out)
		}
		last = i
	}
	code, out, errOut = cli("render", "--config", config, "--app", "web", "--ref", "v1", "--output", "json")
	var doc struct {
		Prerequisites []map[string]any `json:"prerequisites"`
		Waves         []struct {
			UpgradeOrder int `json:"upgradeOrder"`
			Roles        []struct {
				Name string `json:"name"`
			} `json:"roles"`
		} `json:"waves"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("render --ref v1 --output json: exit %d, %s\n%s", code, errOut, out)
	}
	var got []string
	for _, w := range doc.Waves {
		for _, r := range w.Roles {
			got = append(got, fmt.Sprintf("%d:%s", w.UpgradeOrder, r.Name))
		}
	}
	if diff := cmp.Diff([]string{"1:db", "2:api", "2:worker"}, got); diff != "" || len(doc.Prerequisites) != 1 {
		t.Errorf("render json: %d prerequisites, waves (-want +got):\n%s", len(doc.Prerequisites), diff)
	}
	if strings.Contains(out, "worker:2.0") || !strings.Contains(out, "worker:1.0") {
		t.Errorf("render --ref v1 shows the wrong worker image:\n%s", out)
	}
}

// TestPlanRefInTagMode: with the source following a signed tag
// (verify.mode tag), `plan` plans the tag, and `plan --ref` plans a
// branch too, unverified and untrusted, as a preview renders, instead of
// failing for want of source.tag.
func TestPlanRefInTagMode(t *testing.T) {
	t.Parallel()
	newConfig, repo, _, second := planFromGitRepoOf(t)
	key := testgit.NewPGPKey(t, "release", "release@example.com")
	keyFile := filepath.Join(t.TempDir(), "release.asc")
	if err := os.WriteFile(keyFile, []byte(key.Public), 0o644); err != nil {
		t.Fatal(err)
	}
	config := newConfig()
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.TagSigned("v2", second, key); err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "branch: main}", `tag: v2, verify: {mode: tag, pgpKeys: ["`+keyFile+`"]}}`, 1))
	if err := os.WriteFile(config, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ref     []string
		wantRev string
	}{
		{nil, "v2@sha1:" + second},
		{[]string{"--ref", "main"}, "main@sha1:" + second},
	} {
		code, out, errOut := cli(append([]string{"plan", "--config", config, "--app", "web"}, tc.ref...)...)
		if code != exitOK || !strings.Contains(out, tc.wantRev) {
			t.Errorf("plan %v in tag mode: exit %d, %s\n%s\nwant a plan of %s", tc.ref, code, errOut, out, tc.wantRev)
		}
	}
}
