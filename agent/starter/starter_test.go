package starter

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/roleout/roleout/config"
)

// writeTree writes files (slash path → content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func kust(lines ...string) string {
	return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" + strings.Join(lines, "\n") + "\n"
}

const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n"

func TestUniqueNames(t *testing.T) {
	cases := []struct {
		paths []string
		want  []string
	}{
		{[]string{"overlays/prod", "overlays/staging"}, []string{"prod", "staging"}},
		{[]string{"web/overlays/prod", "db/overlays/prod", "web/overlays/dev"}, []string{"web-prod", "db-prod", "dev"}},
		{[]string{"apps/Web_Front", "k8s"}, []string{"web-front", "k8s"}},
		{[]string{"."}, []string{"shop"}},
		{[]string{"prod", "overlays/prod"}, []string{"prod", "prod-2"}},
		{[]string{"myapp/base", "bases/database"}, []string{"myapp", "database"}},
	}
	for _, tc := range cases {
		if got := uniqueNames(tc.paths, "shop"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("uniqueNames(%q) = %q, want %q", tc.paths, got, tc.want)
		}
	}
}

func TestGuessRoles(t *testing.T) {
	root := writeTree(t, map[string]string{
		"b/web/kustomization.yaml":    kust("resources: [d.yaml]"),
		"b/web/d.yaml":                deployment,
		"b/store/kustomization.yaml":  kust("resources: [pvc.yaml]"),
		"b/store/pvc.yaml":            "---\napiVersion: v1\nkind: \"PersistentVolumeClaim\"\n",
		"b/redis/kustomization.yaml":  kust("resources: [d.yaml]"),
		"b/redis/d.yaml":              deployment,
		"b/misc/kustomization.yaml":   kust("resources: [d.yaml]"),
		"b/misc/d.yaml":               deployment,
		"b/userdb/kustomization.yaml": kust(),
		"o/kustomization.yaml":        kust("resources: [../b/web, ../b/misc, ../b/redis, ../b/store, ../b/userdb]"),
		"x/zeta/kustomization.yaml":   kust(),
		"x/alpha/kustomization.yaml":  kust(),
		"x/o/kustomization.yaml":      kust("resources: [../zeta, ../alpha]"),
	})
	tr, err := scanTree(root)
	if err != nil {
		t.Fatal(err)
	}
	summary := func(roles []Role) string {
		var s []string
		for _, r := range roles {
			s = append(s, r.Name+":"+string(rune('0'+r.UpgradeOrder)))
		}
		return strings.Join(s, " ")
	}
	if got, want := summary(tr.guessRoles(roleBases(tr.nodes["o"]))), "store:1 userdb:1 redis:2 misc:3 web:4"; got != want {
		t.Errorf("roles of o = %s, want %s", got, want)
	}
	if got, want := summary(tr.guessRoles(roleBases(tr.nodes["x/o"]))), "alpha:1 zeta:1"; got != want {
		t.Errorf("roles of x/o (no rule matches, objects unread: one wave) = %s, want %s", got, want)
	}
}

// TestSymlinkOutside: a resource behind a symbolic link that leaves the
// repository is not read.
func TestSymlinkOutside(t *testing.T) {
	outside := writeTree(t, map[string]string{"s.yaml": "kind: StatefulSet\n"})
	root := writeTree(t, map[string]string{
		"b/zeta/kustomization.yaml":  kust("resources: [link/s.yaml]"),
		"b/alpha/kustomization.yaml": kust(),
		"o/kustomization.yaml":       kust("resources: [../b/zeta, ../b/alpha]"),
	})
	if err := os.Symlink(outside, filepath.Join(root, "b/zeta/link")); err != nil {
		t.Fatal(err)
	}
	tr, err := scanTree(root)
	if err != nil {
		t.Fatal(err)
	}
	if k := tr.kinds(tr.nodes["b/zeta"]); len(k) != 0 {
		t.Errorf("read kinds %v through a link out of the repository", k)
	}
}

func TestLeaves(t *testing.T) {
	root := writeTree(t, map[string]string{
		// app/overlays/prod → app/base → three bases: the roles are those three.
		"app/base/kustomization.yaml":          kust("resources: [../../svc/api, ../../svc/db, ../../svc/ui, remote]", "components: [../../comp/tls]"),
		"app/overlays/prod/kustomization.yaml": kust("namespace: shop", "resources: [../../base, 'https://github.com/x/y//z?ref=v1']"),
		"app/overlays/dev/Kustomization":       kust("bases: [../../base]", "namespace: Not_Valid"),
		// prod-gpu builds on prod, which is still an app: it is an overlay.
		"app/overlays/prod-gpu/kustomization.yaml": kust("resources: [../prod]"),
		// env/staging builds on a base and names a namespace: an app, even
		// though env/staging-eu builds on it; a base of files with a
		// namespace (svc/api) is not.
		"env/staging/kustomization.yaml":    kust("namespace: staging", "resources: [../../svc/api]"),
		"env/staging-eu/kustomization.yaml": kust("resources: [../staging]"),
		"svc/api/kustomization.yaml":        kust(),
		"svc/db/kustomization.yaml":         kust(),
		"svc/ui/kustomization.yml":          kust(),
		"comp/tls/kustomization.yaml":       "kind: Component\n",
		"comp/unused/kustomization.yaml":    "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n",
		".hidden/kustomization.yaml":        kust(),
		"node_modules/x/kustomization.yaml": kust(),
		"solo/kustomization.yaml":           kust("resources: [deployment.yaml]"),
		"solo/deployment.yaml":              deployment,
		"broken/kustomization.yaml":         "resources: [unclosed\n",
	})
	res, err := Generate(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range res.Apps {
		var roles []string
		for _, r := range a.Roles {
			roles = append(roles, r.Name+"="+strings.Join(r.Paths, ","))
		}
		got = append(got, a.Name+" "+a.Path+" ns="+a.Namespace+" ["+strings.Join(roles, " ")+"]")
	}
	want := []string{
		"dev app/overlays/dev ns= [db=svc/db api=svc/api ui=svc/ui]",
		"prod app/overlays/prod ns=shop [db=svc/db api=svc/api ui=svc/ui]",
		"prod-gpu app/overlays/prod-gpu ns= [db=svc/db api=svc/api ui=svc/ui]",
		"staging env/staging ns=staging []",
		"staging-eu env/staging-eu ns= []",
		"solo solo ns= []",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("apps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	warnings := strings.Join(res.Warnings, "\n")
	for _, w := range []string{"skipped broken/kustomization.yaml", `namespace "Not_Valid"`} {
		if !strings.Contains(warnings, w) {
			t.Errorf("warnings %q lack %q", warnings, w)
		}
	}
	if !res.Source.Placeholder || !strings.Contains(string(res.Config), PlaceholderURL) {
		t.Errorf("a directory outside git should get the placeholder URL: %+v", res.Source)
	}
}

func TestNoOverlay(t *testing.T) {
	root := writeTree(t, map[string]string{"README.md": "hi"})
	if _, err := Generate(context.Background(), root, Options{}); err == nil || !strings.Contains(err.Error(), "no kustomization.yaml found under "+root+": roleout deploys kustomize overlays;") {
		t.Errorf("err = %v", err)
	}
	root = writeTree(t, map[string]string{"a/kustomization.yaml": kust("resources: [../b]"), "b/kustomization.yaml": kust("resources: [../a]")})
	if _, err := Generate(context.Background(), root, Options{}); err == nil || !strings.Contains(err.Error(), "no overlay found") {
		t.Errorf("a cycle: err = %v", err)
	}
}

// shop is an overlay of four bases.
var shop = map[string]string{
	"bases/database/kustomization.yaml": kust("resources: [s.yaml]"),
	"bases/database/s.yaml":             "apiVersion: apps/v1\nkind: StatefulSet\n",
	"bases/cache/kustomization.yaml":    kust(),
	"bases/backend/kustomization.yaml":  kust(),
	"bases/frontend/kustomization.yaml": kust(),
	"overlays/prod/kustomization.yaml":  kust("resources: [../../bases/frontend, ../../bases/backend, ../../bases/cache, ../../bases/database]"),
}

// TestRolesWithPaths takes the roles[].paths branch, whether or not this
// roleout has the field: with it the roles are YAML and load, without it
// they fall back to comments with a warning.
func TestRolesWithPaths(t *testing.T) {
	defer func(f func() bool) { rolePathsSupported = f }(rolePathsSupported)
	rolePathsSupported = func() bool { return true }
	res, err := Generate(context.Background(), writeTree(t, shop), Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := string(res.text("repo", false))
	for _, want := range []string{"  roles:\n  - name: database\n    upgradeOrder: 1   # stateful (has a StatefulSet)\n    paths: [bases/database]\n", "  - name: frontend\n    upgradeOrder: 4"} {
		if !strings.Contains(text, want) {
			t.Errorf("roles with paths lack %q:\n%s", want, text)
		}
	}
	if hasJSONField(reflect.TypeOf(config.Role{}), "paths") {
		if res.RolesCommentedOut || len(res.Warnings) > 0 {
			t.Errorf("roles[].paths exists, yet the roles are comments: %v", res.Warnings)
		}
		cfg, err := config.Parse(res.Config, "init")
		if err != nil || len(cfg.Apps[0].Roles) != 4 {
			t.Fatalf("config with roles: %v, %+v", err, cfg)
		}
		return
	}
	if !res.RolesCommentedOut || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "written as comments") {
		t.Errorf("without roles[].paths the roles should fall back to comments with a warning: %v", res.Warnings)
	}
}

// TestCommentedRolesUncomment checks that the commented roles load once
// uncommented, as the config's note says.
func TestCommentedRolesUncomment(t *testing.T) {
	defer func(f func() bool) { rolePathsSupported = f }(rolePathsSupported)
	rolePathsSupported = func() bool { return false }
	res, err := Generate(context.Background(), writeTree(t, shop), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.RolesCommentedOut {
		t.Fatal("roles not commented out")
	}
	var lines []string
	for _, l := range strings.Split(string(res.Config), "\n") {
		if strings.HasPrefix(l, "  # roles:") || strings.HasPrefix(l, "  # - {") {
			l = "  " + strings.TrimPrefix(l, "  # ")
		}
		lines = append(lines, l)
	}
	cfg, err := config.Parse([]byte(strings.Join(lines, "\n")), "uncommented")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range cfg.Apps[0].Roles {
		got = append(got, r.Name)
		if r.UpgradeOrder == nil {
			t.Errorf("role %s has no upgradeOrder", r.Name)
		}
	}
	if strings.Join(got, " ") != "database cache backend frontend" {
		t.Errorf("roles = %v", got)
	}
}

func TestIsRemote(t *testing.T) {
	for repo, want := range map[string]bool{
		".": false, "./a@b:c": false, "/srv/git/x": false, "dir:with@colon": false,
		"https://h/x.git": true, "HTTP://h/x": true, "ssh://git@h/x": true, "file:///srv/x": true, "git@github.com:org/x.git": true,
	} {
		if got, err := isRemote(repo); err != nil || got != want {
			t.Errorf("isRemote(%q) = %v, %v; want %v", repo, got, err, want)
		}
	}
	for _, repo := range []string{"git://h/x", "ftp://h/x", "s3://b/x"} {
		if _, err := isRemote(repo); err == nil || !strings.Contains(err.Error(), "unsupported URL scheme") {
			t.Errorf("isRemote(%q): err = %v", repo, err)
		}
	}
}

func TestConfigURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://tok:x-oauth@github.com/o/r.git": "https://github.com/o/r.git",
		"https://github.com/o/r.git?token=abc":   "https://github.com/o/r.git",
		"ssh://git:pw@h/o/r.git":                 "ssh://git@h/o/r.git",
		"ssh://git@h/o/r.git":                    "ssh://git@h/o/r.git",
		"git@github.com:o/r.git":                 "git@github.com:o/r.git",
		"https://github.com/o/r.git":             "https://github.com/o/r.git",
	} {
		if got, note := configURL(raw); got != want || (got != raw) != (note != "") {
			t.Errorf("configURL(%q) = %q, %q; want %q", raw, got, note, want)
		}
	}
}

func TestScalar(t *testing.T) {
	for in, want := range map[string]string{
		"prod": "prod", "overlays/prod": "overlays/prod", "yes": `"yes"`, "1.10": `"1.10"`,
		"a b": `"a b"`, "x,y": `"x,y"`, "-x": `"-x"`, "https://h/x": `"https://h/x"`, "": `""`,
	} {
		if got := scalar(in); got != want {
			t.Errorf("scalar(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestApplicationSetToGenerator: an ApplicationSet's git directories
// generator over the repository becomes an appGenerators entry (pattern,
// exclude, name and namespace templates, prune, pruneRemoved from the
// resources finalizer), and the config loads.
func TestApplicationSetToGenerator(t *testing.T) {
	root := writeTree(t, map[string]string{
		"apps/a/kustomization.yaml": kust("resources: [d.yaml]"),
		"apps/a/d.yaml":             deployment,
		"apps/b/kustomization.yaml": kust("resources: [d.yaml]"),
		"apps/b/d.yaml":             deployment,
		"argocd/appset.yaml": `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: apps, namespace: argocd}
spec:
  generators:
  - git:
      repoURL: https://git.example.com/org/apps.git
      revision: HEAD
      directories: [{path: "apps/*"}, {path: apps/legacy, exclude: true}]
  - list: {elements: []}
  template:
    metadata: {name: "{{path.basename}}", finalizers: [resources-finalizer.argocd.argoproj.io]}
    spec:
      source: {repoURL: https://git.example.com/org/apps.git, path: "{{path}}"}
      destination: {server: https://kubernetes.default.svc, namespace: "team-{{path[1]}}"}
      syncPolicy: {automated: {prune: true}}
`,
	})
	res, err := Generate(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Generators) != 1 {
		t.Fatalf("generators: %+v (untranslated %q)", res.Generators, res.Untranslated)
	}
	g := res.Generators[0]
	if g.Directories != "apps/*" || !reflect.DeepEqual(g.Exclude, []string{"apps/legacy"}) || g.Name != "{{basename}}" ||
		g.Template.Namespace != "team-{{dir 1}}" || !g.Template.Prune || !g.PruneRemoved {
		t.Errorf("generator: %+v", g)
	}
	if !strings.Contains(strings.Join(res.Untranslated, "\n"), "generators[1] is not a git directories generator") {
		t.Errorf("untranslated %q does not name the list generator", res.Untranslated)
	}
	cfg, err := config.Parse(res.Config, "init")
	if err != nil {
		t.Fatalf("the config does not load: %v\n%s", err, res.Config)
	}
	if gen := cfg.Generate([]string{"apps/a", "apps/b", "apps/legacy"}); len(gen.Apps) != 2 || gen.Apps[0].Namespace != "team-a" {
		t.Errorf("the translated generator makes %+v", gen.Apps)
	}
}
