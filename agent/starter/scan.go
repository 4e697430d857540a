package starter

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/render"
)

// maxFileBytes bounds what is read of one file: a kustomization, or a
// resource whose kinds are looked at.
const maxFileBytes = 1 << 20

// kustomization is what init reads of a kustomization file; every other
// field is ignored.
type kustomization struct {
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace"`
	Resources  []string `json:"resources"`
	Bases      []string `json:"bases"` // deprecated by kustomize, still read
	Components []string `json:"components"`
	// HelmCharts, Generators, Transformers and Validators are read for
	// what the build needs (needs.go).
	HelmCharts   []any    `json:"helmCharts"`
	Generators   []string `json:"generators"`
	Transformers []string `json:"transformers"`
	Validators   []string `json:"validators"`
}

// node is one directory of the repository that holds a kustomization.
type node struct {
	// dir is the directory, slash-separated and relative to the
	// repository root ("." for the root).
	dir string
	k   kustomization
	// bases are the kustomization directories its resources and bases
	// name, in order; components those its components name.
	bases, components []*node
	// files are the resource files it names (not directories).
	files []string
	// referenced is set when another kustomization names it.
	referenced bool
	// remotes are the remote resources and bases it names (URLs and
	// git@host: references), which kustomize fetches.
	remotes []string
}

// tree is the kustomizations of one repository.
type tree struct {
	root     string // absolute directory of the repository
	nodes    map[string]*node
	warnings []string
}

// scanTree finds every kustomization under root, skipping hidden
// directories (.git, .github, …) and node_modules, and never following a
// symbolic link, then resolves what each one references.
func scanTree(root string) (*tree, error) {
	t := &tree{root: root, nodes: map[string]*node{}}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.warnf("skipped %s: %v", t.rel(p), err)
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		t.readDir(p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, n := range t.nodes {
		t.resolve(n)
	}
	return t, nil
}

// readDir records the kustomization in directory p, if it holds one.
func (t *tree) readDir(p string) {
	var found []string
	for _, name := range render.KustomizationFiles {
		if fi, err := os.Lstat(filepath.Join(p, name)); err == nil && fi.Mode().IsRegular() {
			found = append(found, name)
		}
	}
	if len(found) == 0 {
		return
	}
	dir := t.rel(p)
	if len(found) > 1 {
		t.warnf("%s has %s: kustomize refuses more than one; read %s", dir, strings.Join(found, " and "), found[0])
	}
	data, err := readLimited(filepath.Join(p, found[0]))
	if err != nil {
		t.warnf("skipped %s: %v", path.Join(dir, found[0]), err)
		return
	}
	var k kustomization
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.warnf("skipped %s: not a kustomization: %v", path.Join(dir, found[0]), err)
		return
	}
	t.nodes[dir] = &node{dir: dir, k: k}
}

// resolve links n to the kustomizations and files it references. Remote
// references (URLs, git@host:…) and paths that leave the repository are
// ignored.
func (t *tree) resolve(n *node) {
	seen := map[string]bool{}
	add := func(refs []string, into *[]*node, files bool) {
		for _, ref := range refs {
			if remoteRef(ref) {
				n.remotes = append(n.remotes, ref)
				continue
			}
			if ref == "" || path.IsAbs(ref) {
				continue
			}
			p := path.Clean(path.Join(n.dir, ref))
			if p == ".." || strings.HasPrefix(p, "../") || p == n.dir || seen[p] {
				continue
			}
			seen[p] = true
			if target, ok := t.nodes[p]; ok {
				target.referenced = true
				*into = append(*into, target)
				continue
			}
			if files && t.inside(p) {
				n.files = append(n.files, p)
			}
		}
	}
	add(n.k.Resources, &n.bases, true)
	add(n.k.Bases, &n.bases, false)
	add(n.k.Components, &n.components, false)
}

// inside reports whether p (relative to the root) is a regular file whose
// real path, symbolic links resolved, is inside the root.
func (t *tree) inside(p string) bool {
	real, err := filepath.EvalSymlinks(filepath.Join(t.root, filepath.FromSlash(p)))
	if err != nil {
		return false
	}
	if rel, err := filepath.Rel(t.root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	fi, err := os.Stat(real)
	return err == nil && fi.Mode().IsRegular()
}

// leaves returns the kustomizations under prefix (slash-separated,
// relative to the root, "." for all) that are not components and are
// deployed: those no other kustomization references, and those others
// build on that are still overlays of their own (deployable), sorted by
// directory.
func (t *tree) leaves(prefix string) []*node {
	var out []*node
	for _, n := range t.nodes {
		if (!n.referenced || deployable(n)) && n.k.Kind != "Component" && under(n.dir, prefix) {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out
}

// deployable reports whether an overlay others build on is an app of its
// own: it sits in an overlays/ directory (overlays/prod, which
// overlays/prod-gpu patches), or it names a namespace and builds on other
// kustomizations (an environment, not a base of files).
func deployable(n *node) bool {
	return path.Base(path.Dir(n.dir)) == "overlays" || (n.k.Namespace != "" && len(n.bases) > 0)
}

// count returns how many kustomizations lie under prefix.
func (t *tree) count(prefix string) int {
	c := 0
	for _, n := range t.nodes {
		if under(n.dir, prefix) {
			c++
		}
	}
	return c
}

// roleBases returns the bases an overlay is made of, for one role each:
// the kustomizations its resources name when there are two or more; when
// it names a single one, that one's, and so on down. Fewer than two: nil.
func roleBases(leaf *node) []*node {
	seen := map[string]bool{leaf.dir: true}
	cur := leaf
	for {
		switch {
		case len(cur.bases) >= 2:
			return cur.bases
		case len(cur.bases) == 1 && !seen[cur.bases[0].dir]:
			cur = cur.bases[0]
			seen[cur.dir] = true
		default:
			return nil
		}
	}
}

// kindRE finds the top-level kind of each YAML document.
var kindRE = regexp.MustCompile(`(?m)^kind:[ \t]*["']?([A-Za-z0-9]+)`)

// kinds returns the kinds of the objects in the resource files n and the
// kustomizations below it name (as far as a quick look tells: generators
// and remote resources are not seen).
func (t *tree) kinds(n *node) map[string]bool {
	out := map[string]bool{}
	walkNodes(n, false, func(n *node) {
		for _, f := range n.files {
			data, err := readLimited(filepath.Join(t.root, filepath.FromSlash(f)))
			if err != nil {
				continue
			}
			for _, m := range kindRE.FindAllSubmatch(data, -1) {
				out[string(m[1])] = true
			}
		}
	})
	return out
}

// walkNodes calls visit on n and each kustomization it builds on (and,
// with components, each component), once each.
func walkNodes(n *node, components bool, visit func(*node)) {
	seen := map[string]bool{}
	var walk func(*node)
	walk = func(n *node) {
		if seen[n.dir] {
			return
		}
		seen[n.dir] = true
		visit(n)
		for _, b := range n.bases {
			walk(b)
		}
		if components {
			for _, c := range n.components {
				walk(c)
			}
		}
	}
	walk(n)
}

// rel returns p relative to the root, slash-separated.
func (t *tree) rel(p string) string {
	r, err := filepath.Rel(t.root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

func (t *tree) warnf(format string, args ...any) {
	t.warnings = append(t.warnings, fmt.Sprintf(format, args...))
}

// under reports whether dir is prefix or below it ("." is everything).
func under(dir, prefix string) bool {
	return prefix == "." || dir == prefix || strings.HasPrefix(dir, prefix+"/")
}

// readLimited reads a regular file of at most maxFileBytes.
func readLimited(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxFileBytes)
	}
	return data, nil
}
