package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBuildRefusesAndExplains(t *testing.T) {
	t.Parallel()
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
	cases := []struct {
		name    string
		files   map[string]string
		setup   func(t *testing.T, root string)
		opts    func(*Options)
		wantErr []string
	}{
		{"missing overlay", map[string]string{"x/kustomization.yaml": "resources: []\n"}, nil, nil,
			[]string{"kustomize build app", "not found"}},
		{"invalid yaml names file and line", map[string]string{"app/kustomization.yaml": "resources: [d.yaml]\n", "app/d.yaml": "kind: ConfigMap\nmetadata:\n  name: x\n   bad: indent\n"}, nil, nil,
			[]string{"kustomize build app", "d.yaml", "line 4"}},
		{"missing base", map[string]string{"app/kustomization.yaml": "resources: [../base]\n"}, nil, nil,
			[]string{"kustomize build app", "base"}},
		{"escapes the repository", map[string]string{"app/kustomization.yaml": "resources: [../../outside]\n"},
			func(t *testing.T, root string) {
				writeFile(t, filepath.Join(filepath.Dir(root), "outside", "kustomization.yaml"), "resources: []\n")
			}, nil,
			[]string{"outside is outside the repository"}},
		{"file outside the repository", map[string]string{"app/kustomization.yaml": "resources: [../../secret.yaml]\n"},
			func(t *testing.T, root string) { writeFile(t, filepath.Join(filepath.Dir(root), "secret.yaml"), cm) }, nil,
			[]string{"secret.yaml is outside the repository"}},
		{"symlink out of the repository", map[string]string{"app/kustomization.yaml": "resources: [etc/passwd.yaml]\n"},
			func(t *testing.T, root string) {
				outside := t.TempDir()
				writeFile(t, filepath.Join(outside, "passwd.yaml"), cm)
				if err := os.Symlink(outside, filepath.Join(root, "app", "etc")); err != nil {
					t.Fatal(err)
				}
			}, nil, []string{"is outside the repository"}},
		{"remote base over https", map[string]string{"app/kustomization.yaml": "resources:\n- https://github.com/org/repo//base?ref=v1\n"}, nil, nil,
			[]string{"app/kustomization.yaml", `remote base "https://github.com/org/repo//base?ref=v1" is not allowed`, `add host "github.com" to render.remoteHosts`}},
		{"remote base, github form", map[string]string{"app/kustomization.yaml": "resources: [github.com/org/repo/base]\n"}, nil, nil,
			[]string{`add host "github.com"`}},
		{"remote base, scp form in a base", map[string]string{
			"app/kustomization.yaml":  "resources: [../base]\n",
			"base/kustomization.yaml": "resources: [git@git.example.com:org/repo.git]\n"}, nil, nil,
			[]string{"base/kustomization.yaml", `add host "git.example.com"`}},
		{"remote base from another host", map[string]string{"app/kustomization.yaml": "resources: [https://evil.example/x.yaml]\n"}, nil,
			func(o *Options) { o.RemoteHosts = []string{"github.com"} }, []string{`add host "evil.example"`}},
		// kustomize fetches a generator, transformer or validator named by
		// URL as it fetches a base: each goes through the same gate.
		{"remote generator", map[string]string{"app/kustomization.yaml": "generators: [https://evil.example/org/gen.git]\n"}, nil, nil,
			[]string{"app/kustomization.yaml", `remote generator "https://evil.example/org/gen.git" is not allowed`, `add host "evil.example"`}},
		{"remote transformer in a component", map[string]string{
			"app/kustomization.yaml":  "components: [../comp]\n",
			"comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ntransformers: [git::https://evil.example/org/t.git//x]\n"}, nil, nil,
			[]string{"comp/kustomization.yaml", `remote transformer "git::https://evil.example/org/t.git//x" is not allowed`}},
		{"remote validator", map[string]string{"app/kustomization.yaml": "validators: [git@evil.example:org/v.git]\n"}, nil, nil,
			[]string{`remote validator "git@evil.example:org/v.git" is not allowed`}},
		{"a local transformer directory's remote base", map[string]string{
			"app/kustomization.yaml":  "transformers: [../tdir]\n",
			"tdir/kustomization.yaml": "resources: [https://evil.example/t.yaml]\n"}, nil, nil,
			[]string{"tdir/kustomization.yaml", `remote base "https://evil.example/t.yaml" is not allowed`}},
		{"file url", map[string]string{"app/kustomization.yaml": "resources: [file:///etc/repo]\n"}, nil,
			func(o *Options) { o.RemoteHosts = []string{"file"} }, []string{`remote base "file:///etc/repo" is not allowed`}},
		{"exec plugin off", map[string]string{
			"app/kustomization.yaml": "generators: [gen.yaml]\n",
			"app/gen.yaml":           "apiVersion: example.com/v1\nkind: Gen\nmetadata:\n  name: g\n  annotations:\n    config.kubernetes.io/function: |\n      exec: {path: /bin/sh}\n"}, nil, nil,
			[]string{"kustomize build app", "external plugins disabled", "render.enableExec"}},
		{"a 100 MB file", map[string]string{"app/kustomization.yaml": "resources: [big.yaml]\n"},
			func(t *testing.T, root string) {
				f, err := os.Create(filepath.Join(root, "app", "big.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Truncate(100 << 20); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}, nil, []string{"big.yaml is 104857600 bytes, over the limit of 16777216 bytes per file"}},
		{"100,000 objects stop before kustomize parses them", map[string]string{"app/kustomization.yaml": "resources: [many.yaml]\n"},
			func(t *testing.T, root string) {
				var b strings.Builder
				for i := range 100000 {
					fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i)
				}
				writeFile(t, filepath.Join(root, "app", "many.yaml"), b.String())
			}, nil, []string{"more than 10000 YAML documents", "many.yaml", "limit maxObjects"}},
		{"symlink to /etc", map[string]string{"app/kustomization.yaml": "resources: [etc/hostname]\n"},
			func(t *testing.T, root string) {
				if err := os.Symlink("/etc", filepath.Join(root, "app", "etc")); err != nil {
					t.Fatal(err)
				}
			}, nil, []string{"is outside the repository"}},
		{"helm off", map[string]string{"app/kustomization.yaml": "helmCharts: [{name: x, repo: https://charts.example}]\n"}, nil, nil,
			[]string{"render.enableHelm"}},
		{"duplicate object", map[string]string{"app/kustomization.yaml": "resources: [a.yaml, b.yaml]\n", "app/a.yaml": cm, "app/b.yaml": cm}, nil, nil,
			[]string{"ConfigMap", "same kind, namespace and name"}},
		{"file too large", map[string]string{"app/kustomization.yaml": "resources: [big.yaml]\n", "app/big.yaml": cm + strings.Repeat("# padding\n", 200)}, nil,
			func(o *Options) { o.Limits.MaxFileBytes = 1000 }, []string{"big.yaml is", "over the limit of 1000 bytes per file"}},
		{"bytes read in all, across a base", map[string]string{"app/kustomization.yaml": "resources: [a.yaml, ../base]\n",
			"app/a.yaml": cm + strings.Repeat("# padding\n", 40), "base/kustomization.yaml": "resources: [b.yaml]\n",
			"base/b.yaml": strings.Replace(cm, "name: a", "name: b", 1) + strings.Repeat("# padding\n", 40)}, nil,
			func(o *Options) { o.Limits.MaxBytes = 700 }, []string{"kustomize build app", "render read more than 700 bytes (limit maxBytes), at base/b.yaml"}},
		// A 1 MiB patch applied to 9 ConfigMaps writes 9 MiB of objects
		// from 1 MiB of files: the result is bounded by maxBytes (at least
		// 8 MiB), not by a multiple of it.
		{"a small patch multiplied into a large result", map[string]string{
			"app/kustomization.yaml": "resources: [many.yaml]\npatches:\n- path: fat.yaml\n  target: {kind: ConfigMap}\n",
			"app/many.yaml":          manyConfigMaps(9),
			"app/fat.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: any}\ndata: {fat: " + strings.Repeat("x", 1<<20) + "}\n"}, nil,
			// Under the race detector on a loaded machine the 9 MiB take
			// tens of seconds to write: the size, not the clock, must stop it.
			func(o *Options) { o.Limits.MaxBytes, o.Limits.Timeout = 2<<20, 5*time.Minute },
			[]string{"render produced more than 8 MiB of objects (limit render.maxBytes, at least 8 MiB)"}},
		{"too many objects", map[string]string{"app/kustomization.yaml": "resources: [a.yaml]\n",
			"app/a.yaml": cm + "---\n" + strings.Replace(cm, "name: a", "name: b", 1)}, nil,
			func(o *Options) { o.Limits.MaxObjects = 1 }, []string{"more than 1 YAML documents", "a.yaml", "limit maxObjects"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "repo")
			for p, c := range tc.files {
				writeFile(t, filepath.Join(root, filepath.FromSlash(p)), c)
			}
			if tc.setup != nil {
				tc.setup(t, root)
			}
			opts := DefaultOptions()
			if tc.opts != nil {
				tc.opts(&opts)
			}
			_, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "app", opts)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), root) {
				t.Errorf("error %q shows the checkout path", err)
			}
		})
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRemoteHost(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"https://github.com/org/repo//base?ref=v1": "github.com",
		"git::https://GitLab.com/org/repo":         "gitlab.com",
		"ssh://git@git.example.com:2222/org/repo":  "git.example.com",
		"git@git.example.com:org/repo.git":         "git.example.com",
		"github.com/org/repo/base":                 "github.com",
		"http://127.0.0.1:8080/x.git":              "127.0.0.1",
		"file:///srv/repo":                         "file",
	}
	for entry, want := range cases {
		host, remote := remoteHost(entry)
		if !remote || host != want {
			t.Errorf("remoteHost(%q) = %q, %v; want %q, true", entry, host, remote, want)
		}
	}
	for _, local := range []string{"../base", "base", "my.app/overlay", "deploy.yaml", "./x"} {
		if _, remote := remoteHost(local); remote {
			t.Errorf("remoteHost(%q) says remote", local)
		}
	}
}

// manyConfigMaps returns n small ConfigMaps as one YAML stream.
func manyConfigMaps(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i)
	}
	return b.String()
}
