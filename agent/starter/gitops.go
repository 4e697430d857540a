package starter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// gitopsObject is a Flux or Argo CD object found in the repository, with
// the file it is in.
type gitopsObject struct {
	file string
	// raw is the object as JSON, decoded again by each translator.
	raw        []byte
	apiVersion string
	kind       string
	name       string
	namespace  string
}

// String names the object as untranslated lists it: Kind namespace/name
// (file).
func (o gitopsObject) String() string {
	n := o.name
	if o.namespace != "" {
		n = o.namespace + "/" + n
	}
	return fmt.Sprintf("%s %s (%s)", o.kind, n, o.file)
}

// group is the object's API group.
func (o gitopsObject) group() string {
	g, _, _ := strings.Cut(o.apiVersion, "/")
	if !strings.Contains(o.apiVersion, "/") {
		return ""
	}
	return g
}

// gitops are the Flux and Argo CD objects of a repository.
type gitops struct {
	kustomizations  []gitopsObject // kustomize.toolkit.fluxcd.io Kustomization
	applications    []gitopsObject // argoproj.io Application
	applicationSets []gitopsObject // argoproj.io ApplicationSet
	others          []gitopsObject // HelmRelease, GitRepository, … (listed when they cannot be carried over)
	// dirs are the directories holding any of them: Flux's and Argo CD's
	// own configuration, not apps.
	dirs map[string]bool
}

// empty reports whether the repository holds no Flux Kustomization and
// no Argo CD Application or ApplicationSet.
func (g *gitops) empty() bool {
	return len(g.kustomizations) == 0 && len(g.applications) == 0 && len(g.applicationSets) == 0
}

// maxGitopsFiles bounds the YAML files read for Flux and Argo CD objects.
const maxGitopsFiles = 20000

// scanGitops reads every YAML file under prefix (hidden directories and
// node_modules skipped, symbolic links never followed, each file bounded
// by maxFileBytes) for Flux Kustomizations, HelmReleases and sources, and
// Argo CD Applications and ApplicationSets.
func (t *tree) scanGitops(prefix string) (*gitops, error) {
	g := &gitops{dirs: map[string]bool{}}
	start := filepath.Join(t.root, filepath.FromSlash(prefix))
	files := 0
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the layout scan warned
		}
		if d.IsDir() {
			if p != start && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := path.Ext(d.Name()); (ext != ".yaml" && ext != ".yml") || !d.Type().IsRegular() {
			return nil
		}
		if files++; files > maxGitopsFiles {
			return fmt.Errorf("more than %d YAML files under %s: run roleout init on a smaller directory", maxGitopsFiles, prefix)
		}
		data, err := readLimited(p)
		if err != nil || !bytes.Contains(data, []byte("kind:")) {
			return nil
		}
		t.readGitops(g, t.rel(p), data)
		return nil
	})
	return g, err
}

// readGitops adds the Flux and Argo CD objects of one YAML file to g.
func (t *tree) readGitops(g *gitops, file string, data []byte) {
	dec := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := dec.Read()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			return // not YAML kustomize would read either
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil || yaml.Unmarshal(js, &head) != nil {
			continue
		}
		o := gitopsObject{file: file, raw: js, apiVersion: head.APIVersion, kind: head.Kind, name: head.Metadata.Name, namespace: head.Metadata.Namespace}
		switch o.group() + "/" + o.kind {
		case "kustomize.toolkit.fluxcd.io/Kustomization":
			g.kustomizations = append(g.kustomizations, o)
		case "argoproj.io/Application":
			g.applications = append(g.applications, o)
		case "argoproj.io/ApplicationSet":
			g.applicationSets = append(g.applicationSets, o)
		case "helm.toolkit.fluxcd.io/HelmRelease":
			g.others = append(g.others, o)
		default:
			continue
		}
		g.dirs[path.Dir(file)] = true
	}
}

// sortedDirs returns dirs sorted.
func sortedDirs(dirs map[string]bool) []string {
	out := make([]string, 0, len(dirs))
	for d := range dirs {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// repoPath turns a path of a Flux Kustomization or Argo CD Application
// ("./apps/staging", "apps/staging/") into a repository path, or "" when
// it leaves the repository.
func repoPath(p string) string {
	p = path.Clean(strings.TrimPrefix(strings.TrimSpace(p), "/"))
	if p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}
