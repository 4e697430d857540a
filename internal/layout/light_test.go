package layout

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// heavy are the module path prefixes the vocabulary's readers must not
// link: the build (kustomize, Helm), git, and Kubernetes' own code (the
// controllers and their defaulting, which only predictions need).
var heavy = []string{"sigs.k8s.io/kustomize/", "helm.sh/", "github.com/go-git/", "k8s.io/kubernetes/"}

// TestLightVocabulary: the packages that only read or say what a plan
// and a status are (the format, the user contract, the web view, the
// notifiers, the forge poster, the diff) link none of heavy; the pure
// plan links no build, sandbox or Helm code (render itself; "$" ends an
// exact path, the others are prefixes). A package that gains such a
// dependency fails with the chain that brought it in.
func TestLightVocabulary(t *testing.T) {
	t.Parallel()
	forbid := map[string][]string{
		"model": heavy, "status": heavy, "config": heavy, "ui": heavy, "notify": heavy, "forge": heavy, "diff": heavy, "render/revision": heavy,
		"render/plan": {"sigs.k8s.io/kustomize/", "helm.sh/", "github.com/go-git/", module + "render$"},
	}
	for pkg, bad := range forbid {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}", "./../../"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		imports := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			path, imps, _ := strings.Cut(line, "\t")
			imports[path] = strings.Fields(imps)
		}
		var linked []string
		for dep := range imports {
			for _, b := range bad {
				if exact, isExact := strings.CutSuffix(b, "$"); dep == exact || !isExact && strings.HasPrefix(dep, b) {
					linked = append(linked, dep)
				}
			}
		}
		if len(linked) > 0 {
			slices.Sort(linked)
			t.Errorf("%s links %d packages it must not, %s among them: %s", pkg, len(linked), linked[0], strings.Join(chain(imports, module+pkg, linked[0]), " → "))
		}
	}
}

// chain returns a shortest import path from root to dep in imports.
func chain(imports map[string][]string, root, dep string) []string {
	prev := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == dep {
			var out []string
			for ; p != ""; p = prev[p] {
				out = append([]string{p}, out...)
			}
			return out
		}
		for _, i := range imports[p] {
			if _, seen := prev[i]; !seen {
				prev[i] = p
				queue = append(queue, i)
			}
		}
	}
	return []string{root, "…", dep}
}
