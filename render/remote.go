package render

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// KustomizationFiles are the names kustomize reads a kustomization from
// in a directory, in the order it looks for them.
var KustomizationFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// loadedFields are the kustomization fields whose entries kustomize loads
// as paths or URLs: each may name a git repository or an http(s) file,
// which kustomize fetches (a generator, transformer or validator as much
// as a resource).
var loadedFields = []string{"resources", "bases", "components", "generators", "transformers", "validators"}

// checkRemotes walks the kustomization graph from dir, through every
// local directory any of loadedFields names, and refuses a remote
// reference (a git repository or an http(s) file) whose host is not in
// allowed. kustomize would otherwise fetch it during the build. An allowed
// one marks the render external, so that it is not cached. A
// kustomization that gives its own OpenAPI schema (the openapi field)
// marks the render customSchema, which a warm process leaves to a cold
// one (spare.go).
func checkRemotes(fs *repoFS, dir string, allowed []string) error {
	seen := map[string]bool{}
	var walk func(dir string) error
	walk = func(dir string) error {
		if seen[dir] {
			return nil
		}
		seen[dir] = true
		k, file, err := readKustomization(fs, dir)
		if err != nil || k == nil {
			return err // kustomize reports a missing kustomization itself
		}
		if k["openapi"] != nil {
			fs.customSchema = true
		}
		for _, field := range loadedFields {
			for _, entry := range stringList(k[field]) {
				if host, remote := remoteHost(entry); remote {
					if !hostAllowed(host, allowed) {
						what := "remote base"
						if field == "generators" || field == "transformers" || field == "validators" {
							what = "remote " + strings.TrimSuffix(field, "s")
						}
						return fmt.Errorf("%s: %s %q is not allowed: add host %q to render.remoteHosts of the app to allow it",
							fs.display(file), what, entry, host)
					}
					fs.external = true // fetched past the file system: never cached
					continue
				}
				next := filepath.Join(dir, filepath.FromSlash(entry))
				if fs.IsDir(next) {
					if err := walk(next); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return walk(dir)
}

// readKustomization reads and parses dir's kustomization file, or returns
// nil when there is none.
func readKustomization(fs *repoFS, dir string) (map[string]any, string, error) {
	for _, name := range KustomizationFiles {
		file := filepath.Join(dir, name)
		if !fs.Exists(file) {
			continue
		}
		data, err := fs.ReadFile(file)
		if err != nil {
			return nil, file, err
		}
		var k map[string]any
		if err := yaml.Unmarshal(data, &k); err != nil {
			return nil, file, fmt.Errorf("%s: invalid YAML: %w", fs.display(file), err)
		}
		return k, file, nil
	}
	return nil, "", nil
}

func stringList(v any) []string {
	items, _ := v.([]any)
	var out []string
	for _, it := range items {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// userPrefix is the user@ prefix of scp-like git URLs.
var userPrefix = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// remoteHost reports whether a kustomization entry names something remote
// the way kustomize recognises it — an ssh, https, http or file URL
// (optionally behind git::), an scp-like user@host:path, or a github.com/
// path — and its host. A file URL has host "file" and is never allowed.
func remoteHost(entry string) (string, bool) {
	e := entry
	if len(e) >= 5 && strings.EqualFold(e[:5], "git::") {
		e = e[5:]
	}
	lower := strings.ToLower(e)
	for _, scheme := range []string{"ssh://", "https://", "http://"} {
		if strings.HasPrefix(lower, scheme) {
			u, err := url.Parse(e)
			if err != nil || u.Hostname() == "" {
				return e, true
			}
			return strings.ToLower(u.Hostname()), true
		}
	}
	if strings.HasPrefix(lower, "file://") {
		return "file", true
	}
	if strings.HasPrefix(lower, "github.com/") || strings.HasPrefix(lower, "github.com:") {
		return "github.com", true
	}
	if m := userPrefix.FindString(e); m != "" {
		host := e[len(m):]
		if i := strings.IndexAny(host, ":/"); i >= 0 {
			host = host[:i]
		}
		return strings.ToLower(host), true
	}
	return "", false
}

func hostAllowed(host string, allowed []string) bool {
	if host == "file" {
		return false
	}
	for _, a := range allowed {
		if strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}
