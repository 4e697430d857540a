package starter

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// remoteRef reports whether a kustomization's resource reference is
// remote: a URL, or git's host:path form (git@github.com:org/repo).
func remoteRef(ref string) bool {
	if strings.Contains(ref, "://") {
		return true
	}
	at, colon := strings.Index(ref, "@"), strings.Index(ref, ":")
	return at > 0 && colon > at && !strings.Contains(ref[:colon], "/")
}

// remoteHost is the host a remote reference is fetched from ("" when
// none can be read).
func remoteHost(ref string) string {
	if u, err := url.Parse(ref); err == nil && u.Host != "" {
		return u.Hostname()
	}
	if at, colon := strings.Index(ref, "@"), strings.Index(ref, ":"); at > 0 && colon > at {
		return ref[at+1 : colon]
	}
	return ""
}

// buildNeeds are what an overlay's build needs beyond its repository,
// read from the kustomizations it is made of.
type buildNeeds struct {
	// remotes are the remote references, hosts the hosts they are
	// fetched from.
	remotes, hosts []string
	// helm is set when a kustomization inflates Helm charts; charts are
	// those fetched from a Helm repository.
	helm   bool
	charts []string
	// functions are the files of KRM functions and plugins the build
	// runs: "exec" or "container" functions, or legacy plugins.
	functions []string
}

// functionRE finds a KRM function's runtime in its config file.
var functionRE = regexp.MustCompile(`(?m)^\s*(exec|container)\s*:`)

// needsOf returns what the overlay at n needs to build: n and every
// kustomization and component under it.
func (t *tree) needsOf(n *node) buildNeeds {
	var out buildNeeds
	walkNodes(n, true, func(n *node) {
		for _, r := range n.remotes {
			out.remotes = append(out.remotes, r)
			if h := remoteHost(r); h != "" && !slices.Contains(out.hosts, h) {
				out.hosts = append(out.hosts, h)
			}
		}
		for _, c := range n.k.HelmCharts {
			out.helm = true
			chart, _ := c.(map[string]any)
			repo, _ := chart["repo"].(string)
			name, _ := chart["name"].(string)
			if repo == "" {
				continue // a chart in the repository (helmGlobals.chartHome)
			}
			out.charts = append(out.charts, fmt.Sprintf("%s from %s", name, repo))
			if h := remoteHost(repo); h != "" && !slices.Contains(out.hosts, h) {
				out.hosts = append(out.hosts, h)
			}
		}
		for _, list := range [][]string{n.k.Generators, n.k.Transformers, n.k.Validators} {
			for _, f := range list {
				if remoteRef(f) {
					continue
				}
				p := path.Clean(path.Join(n.dir, f))
				data, err := readLimited(filepath.Join(t.root, filepath.FromSlash(p)))
				if err != nil {
					continue // a directory, or missing: the build says
				}
				if m := functionRE.FindSubmatch(data); m != nil {
					out.functions = append(out.functions, fmt.Sprintf("%s (%s function)", p, m[1]))
				} else if strings.Contains(string(data), "HelmChartInflationGenerator") {
					out.helm = true
				}
			}
		}
	})
	slices.Sort(out.hosts)
	return out
}

// needs says in words what b stands for, for an app's needs list.
func (b buildNeeds) needs() []string {
	var out []string
	for _, r := range b.remotes {
		out = append(out, fmt.Sprintf("remote base %s: the render fetches it from %s over the network (render.remoteHosts)", oneLine(r), remoteHost(r)))
	}
	for _, c := range b.charts {
		out = append(out, fmt.Sprintf("Helm chart %s: the render fetches it over the network (render.enableHelm, render.remoteHosts)", oneLine(c)))
	}
	for _, f := range b.functions {
		out = append(out, fmt.Sprintf("KRM function %s: roleout runs exec functions only with render.enableExec: true (it runs a program from the repository: review it first) and no container functions", oneLine(f)))
	}
	return out
}
