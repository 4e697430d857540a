package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/testgit"
)

// initFixture copies testdata/init (bases database, cache, backend and
// frontend; overlays prod and staging made of all four) to a new
// directory outside any git work tree.
func initFixture(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir("testdata/init", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/init", p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// initJSON is what roleout init --output json prints.
type initJSON struct {
	Config string `json:"config"`
	Source struct {
		URL         string `json:"url"`
		Branch      string `json:"branch"`
		Placeholder bool   `json:"placeholder"`
	} `json:"source"`
	Apps []struct {
		Name      string `json:"name"`
		Path      string `json:"path"`
		Namespace string `json:"namespace"`
		Roles     []struct {
			Name         string   `json:"name"`
			UpgradeOrder int      `json:"upgradeOrder"`
			Paths        []string `json:"paths"`
			Reason       string   `json:"reason"`
		} `json:"roles"`
	} `json:"apps"`
	RolesCommentedOut bool `json:"rolesCommentedOut"`
}

// loadWritten writes data to a file and loads it as roleout run would.
func loadWritten(t *testing.T, data string) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("the config roleout init printed does not load: %v\n%s", err, data)
	}
	return cfg
}

// TestInitLocalDirectory: a directory outside git gets a placeholder
// source, one app per overlay with its namespace, and roles guessed from
// the four bases; the config loads with the strict parser.
func TestInitLocalDirectory(t *testing.T) {
	t.Parallel()
	dir := initFixture(t)
	code, out, errOut := cli("init", dir)
	if code != exitOK {
		t.Fatalf("init exit %d: %s", code, errOut)
	}
	cfg := loadWritten(t, out)
	if cfg.Source.URL == "" || !strings.Contains(out, "# TODO: the URL the agent clones") {
		t.Errorf("no placeholder source for a directory outside git:\n%s", out)
	}
	var apps []string
	for _, a := range cfg.Apps {
		apps = append(apps, a.Name+"="+a.Path+"@"+a.Namespace)
	}
	if got := strings.Join(apps, " "); got != "prod=overlays/prod@shop-prod staging=overlays/staging@shop-staging" {
		t.Errorf("apps = %s", got)
	}
	for _, want := range []string{"database, upgradeOrder: 1", "cache, upgradeOrder: 2", "backend, upgradeOrder: 3", "frontend, upgradeOrder: 4", "proposals"} {
		if !strings.Contains(out, want) && !strings.Contains(out, strings.ReplaceAll(want, ", upgradeOrder: ", "\n    upgradeOrder: ")) {
			t.Errorf("config lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"roleout plan --config agent.yaml --app prod", "roleout init --write agent.yaml", "fill in source.url"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("next steps on stderr lack %q:\n%s", want, errOut)
		}
	}
}

// TestInitJSONAndWrite: --output json carries the config and the apps
// with their roles; --write refuses to overwrite without --force.
func TestInitJSONAndWrite(t *testing.T) {
	t.Parallel()
	dir := initFixture(t)
	file := filepath.Join(t.TempDir(), "agent.yaml")
	code, out, errOut := cli("init", dir, "--write", file, "--output", "json")
	if code != exitOK {
		t.Fatalf("init exit %d: %s", code, errOut)
	}
	var rep initJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("init --output json: %v\n%s", err, out)
	}
	written, err := os.ReadFile(file)
	if err != nil || string(written) != rep.Config {
		t.Fatalf("--write wrote %q (%v), want the config of the JSON", written, err)
	}
	if _, err := config.Load(file); err != nil {
		t.Fatal(err)
	}
	if len(rep.Apps) != 2 || rep.Apps[0].Name != "prod" || rep.Apps[0].Path != "overlays/prod" {
		t.Fatalf("apps = %+v", rep.Apps)
	}
	var roles []string
	for _, r := range rep.Apps[0].Roles {
		roles = append(roles, r.Name+":"+strings.Join(r.Paths, ",")+":"+string(rune('0'+r.UpgradeOrder)))
	}
	if got := strings.Join(roles, " "); got != "database:bases/database:1 cache:bases/cache:2 backend:bases/backend:3 frontend:bases/frontend:4" {
		t.Errorf("roles of prod = %s", got)
	}
	if !strings.Contains(errOut, "roleout plan --config "+file+" --app prod") {
		t.Errorf("next steps lack the plan command for %s:\n%s", file, errOut)
	}

	if code, _, errOut := cli("init", dir, "--write", file); code != exitError || !strings.Contains(errOut, "exists") || !strings.Contains(errOut, "--force") {
		t.Errorf("second --write: exit %d, %s; want a refusal naming --force", code, errOut)
	}
	if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := cli("init", dir, "--write", file, "--force"); code != exitOK || out != "" {
		t.Fatalf("--write --force: exit %d, stdout %q, %s", code, out, errOut)
	}
	if _, err := config.Load(file); err != nil {
		t.Errorf("--force did not replace the file: %v", err)
	}
}

// TestInitLocalGit: a work tree gives origin's URL (credentials left out)
// and the checked-out branch; a subdirectory keeps paths relative to the
// repository root.
func TestInitLocalGit(t *testing.T) {
	t.Parallel()
	dir := initFixture(t)
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("release")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateRemote(&gitconfig.RemoteConfig{Name: "origin", URLs: []string{"https://bot:s3cret@git.example.com/shop/config.git"}}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cli("init", filepath.Join(dir, "overlays"))
	if code != exitOK {
		t.Fatalf("init exit %d: %s", code, errOut)
	}
	cfg := loadWritten(t, out)
	if cfg.Source.URL != "https://git.example.com/shop/config.git" || cfg.Source.Branch != "release" {
		t.Errorf("source = %s %s, want origin without credentials and branch release", cfg.Source.URL, cfg.Source.Branch)
	}
	if strings.Contains(out+errOut, "s3cret") {
		t.Errorf("the password of origin's URL leaked:\n%s\n%s", out, errOut)
	}
	if len(cfg.Apps) != 2 || cfg.Apps[1].Path != "overlays/staging" {
		t.Errorf("apps = %+v", cfg.Apps)
	}
}

// TestInitGitURL: a URL served by the git server is cloned; the config
// follows it at its default branch, and roleout plan --config, the next
// step the command suggests, plans the guessed roles in their waves (after
// the edit the config's note asks for when roles[].paths is missing).
func TestInitGitURL(t *testing.T) {
	t.Parallel()
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "shop")
	if _, err := repo.CommitDir("main", "shop", "testdata/init", ""); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "agent.yaml")
	code, _, errOut := cli("init", repo.URL(), "--write", file)
	if code != exitOK {
		t.Fatalf("init exit %d: %s", code, errOut)
	}
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source.URL != repo.URL() || cfg.Source.Branch != "main" || len(cfg.Apps) != 2 {
		t.Fatalf("config: source %s %s, %d apps", cfg.Source.URL, cfg.Source.Branch, len(cfg.Apps))
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	config := string(data)
	if strings.Contains(config, "\n  # roles:\n") {
		// Without roles[].paths: what the config's note says, annotate
		// the bases and uncomment the roles.
		files := map[string]string{}
		for _, b := range []string{"database", "cache", "backend", "frontend"} {
			k, err := os.ReadFile("testdata/init/bases/" + b + "/kustomization.yaml")
			if err != nil {
				t.Fatal(err)
			}
			files["bases/"+b+"/kustomization.yaml"] = string(k) + "commonAnnotations:\n  roleout.dev/role: " + b + "\n"
		}
		if _, err := repo.Commit("main", "annotate the roles", files); err != nil {
			t.Fatal(err)
		}
		config = strings.ReplaceAll(config, "\n  # roles:\n", "\n  roles:\n")
		config = strings.ReplaceAll(config, "\n  # - {", "\n  - {")
	}
	// A cache of the test's own, not the user's.
	config += "cacheDir: " + t.TempDir() + "\n"
	if err := os.WriteFile(file, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := planJSON(t, "plan", "--config", file, "--app", "prod")
	var waves []string
	for _, w := range plan.Waves {
		for _, r := range w.Roles {
			waves = append(waves, fmt.Sprintf("%d:%s", w.UpgradeOrder, r.Name))
		}
	}
	if got := strings.Join(waves, " "); got != "1:database 2:cache 3:backend 4:frontend" {
		t.Errorf("waves of the guessed roles = %s, want database, cache, backend, frontend", got)
	}
}

// TestInitErrors: no kustomization, a refused scheme, a missing path.
func TestInitErrors(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "deployment.yaml"), []byte("kind: Deployment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"init", empty}, "no kustomization.yaml found under " + empty + ": roleout deploys kustomize overlays;"},
		{[]string{"init", "git://git.example.com/shop.git"}, `unsupported URL scheme "git"`},
		{[]string{"init", "ftp://user:pw@git.example.com/shop.git"}, `unsupported URL scheme "ftp"`},
		{[]string{"init", filepath.Join(empty, "missing")}, "is not a directory"},
		{[]string{"init", "a", "b"}, "accepts at most 1 arg"},
	}
	for _, tc := range cases {
		code, out, errOut := cli(tc.args...)
		if code != exitError || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
		if strings.Contains(errOut, "pw@") {
			t.Errorf("%v: credentials in the error: %s", tc.args, errOut)
		}
	}
}

// TestInitLLMServingExample: init on the README's headline example
// proposes prod, which prod-lws builds on, beside dev and prod-lws: an
// overlay in overlays/ is an app even when another overlay patches it.
func TestInitLLMServingExample(t *testing.T) {
	t.Parallel()
	code, out, errOut := cli("init", "../../examples/llm-serving", "--output", "json")
	if code != exitOK {
		t.Fatalf("init exit %d: %s", code, errOut)
	}
	var rep initJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("init --output json: %v\n%s", err, out)
	}
	var apps []string
	for _, a := range rep.Apps {
		apps = append(apps, a.Name+"="+a.Path)
	}
	want := "dev=examples/llm-serving/overlays/dev prod=examples/llm-serving/overlays/prod prod-lws=examples/llm-serving/overlays/prod-lws"
	if got := strings.Join(apps, " "); got != want {
		t.Errorf("apps proposed for examples/llm-serving = %s, want %s", got, want)
	}
}
