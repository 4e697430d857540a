package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/roleout/roleout/"

// forbidden maps a package directory prefix to the module packages its
// non-test files must not import.
var forbidden = map[string][]string{
	"agent":           {"cmd", "internal/testcluster", "internal/testgit"},
	"sources":         {"agent", "render", "apply", "cmd", "internal/testcluster", "internal/testgit"},
	"render":          {"agent", "sources", "apply", "cmd", "internal/testcluster", "internal/testgit"},
	"render/revision": {"render/", "agent", "sources", "apply", "cmd", "internal/testcluster", "internal/testgit"},
	"apply":           {"agent", "sources", "render", "cmd", "internal/testcluster", "internal/testgit"},
	// cmd goes through agent: it imports render and apply only for the
	// types it prints.
	"cmd": {"sources", "render/revision", "internal/secrets", "internal/object", "internal/testcluster", "internal/testgit"},
	// The leaves import nothing of roleout.
	"internal/object":  {"agent", "sources", "render", "apply", "cmd", "internal"},
	"internal/secrets": {"agent", "sources", "render", "apply", "cmd", "internal"},
}

func TestImportRules(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "hack" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		rules := rulesFor(rel)
		if rules == nil {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			pkg, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			for _, bad := range rules {
				if violates(pkg, bad) {
					t.Errorf("%s imports %s: %s must not import %s (docs/design.md: Packages and import rules)", path, p, rel, bad)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no product files checked: is the test running from internal/layout?")
	}
}

// rulesFor returns the rules of the longest matching package prefix.
func rulesFor(dir string) []string {
	best := ""
	for prefix := range forbidden {
		if (dir == prefix || strings.HasPrefix(dir, prefix+"/")) && len(prefix) > len(best) {
			best = prefix
		}
	}
	if best == "" {
		return nil
	}
	return forbidden[best]
}

// violates reports whether pkg is rule or below it. A rule ending in "/"
// names only the package itself ("render/" forbids render, not
// render/revision).
func violates(pkg, rule string) bool {
	if r, ok := strings.CutSuffix(rule, "/"); ok {
		return pkg == r
	}
	return pkg == rule || strings.HasPrefix(pkg, rule+"/")
}

func TestViolates(t *testing.T) {
	cases := []struct {
		pkg, rule string
		want      bool
	}{
		{"render", "render/", true},
		{"render/revision", "render/", false},
		{"render/revision", "render", true},
		{"renderer", "render", false},
		{"internal/testgit", "internal/testgit", true},
	}
	for _, tc := range cases {
		if got := violates(tc.pkg, tc.rule); got != tc.want {
			t.Errorf("violates(%q, %q) = %v, want %v", tc.pkg, tc.rule, got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join("..", "..", "go.mod")); err != nil {
		t.Fatalf("module root not at ../..: %v", err)
	}
}
