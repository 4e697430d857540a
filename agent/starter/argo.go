package starter

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
)

// syncWaveAnnotation orders an Argo CD Application's resources, and the
// Applications of an app of apps.
const syncWaveAnnotation = "argocd.argoproj.io/sync-wave"

// argoApplication is what init reads of an Argo CD Application; every
// other field is untranslated.
type argoApplication struct {
	Metadata struct {
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Source *struct {
			RepoURL   string `json:"repoURL"`
			Path      string `json:"path"`
			Helm      any    `json:"helm"`
			Kustomize any    `json:"kustomize"`
			Directory any    `json:"directory"`
			Plugin    any    `json:"plugin"`
			Chart     string `json:"chart"`
		} `json:"source"`
		Sources     []any `json:"sources"`
		Destination struct {
			Server    string `json:"server"`
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"destination"`
		SyncPolicy argoSyncPolicy `json:"syncPolicy"`
	} `json:"spec"`
}

// argoSyncPolicy is what init reads of an Application's sync policy.
type argoSyncPolicy struct {
	Automated *struct {
		Prune bool `json:"prune"`
	} `json:"automated"`
}

// prune reports whether the policy prunes automatically.
func (p argoSyncPolicy) prune() bool { return p.Automated != nil && p.Automated.Prune }

// argoApps proposes one app per Argo CD Application whose source is a
// path of this repository (repoURL matching sourceURL, when that is
// known): path, destination namespace and automated prune carried over.
// Applications of one app of apps (one directory) with sync waves become
// dependencies: an app depends on the apps of the nearest lower wave.
// ApplicationSets, Helm charts, plugins, several sources and other
// clusters are untranslated, by name.
func (g *gitops) argoApps(sourceURL string) ([]App, []string) {
	var apps []App
	var untranslated []string
	waves := map[string]map[int][]string{} // directory → wave → app names
	taken := map[string]bool{}
	for _, o := range g.applications {
		var app argoApplication
		if err := json.Unmarshal(o.raw, &app); err != nil {
			untranslated = append(untranslated, fmt.Sprintf("%s: not an Application init can read: %v", o, err))
			continue
		}
		s := app.Spec.Source
		switch {
		case len(app.Spec.Sources) > 0 || s == nil:
			untranslated = append(untranslated, o.String()+": several sources (or none): roleout renders one path of one repository")
			continue
		case s.Chart != "":
			untranslated = append(untranslated, fmt.Sprintf("%s: Helm chart %s from %s: roleout renders charts through kustomize's helmCharts", o, s.Chart, s.RepoURL))
			continue
		case s.Plugin != nil:
			untranslated = append(untranslated, o.String()+": a config management plugin: roleout renders kustomize only")
			continue
		case sourceURL != "" && !sameRepo(s.RepoURL, sourceURL):
			untranslated = append(untranslated, fmt.Sprintf("%s: its source %s is not this repository", o, s.RepoURL))
			continue
		case repoPath(s.Path) == "" || g.dirs[repoPath(s.Path)]:
			untranslated = append(untranslated, fmt.Sprintf("%s: its path %q holds Argo CD's own objects (an app of apps) or leaves the repository: not an app", o, s.Path))
			continue
		}
		d := app.Spec.Destination
		if (d.Server != "" && d.Server != "https://kubernetes.default.svc") || (d.Name != "" && d.Name != "in-cluster") {
			untranslated = append(untranslated, o.String()+": another cluster (destination "+d.Server+d.Name+"): set the app's kubeconfigSecret")
		}
		for what, set := range map[string]bool{"helm parameters": s.Helm != nil, "kustomize options": s.Kustomize != nil, "directory options": s.Directory != nil} {
			if set {
				untranslated = append(untranslated, fmt.Sprintf("%s: %s: put them in the overlay's kustomization", o, what))
			}
		}
		name := dnsLabel(o.name, "app")
		for k := 2; taken[name]; k++ {
			name = dnsLabel(fmt.Sprintf("%s-%d", o.name, k), "app")
		}
		taken[name] = true
		a := App{Name: name, Path: repoPath(s.Path), Namespace: d.Namespace, Roles: []Role{}, Needs: []string{}, From: "Argo CD " + o.String()}
		a.Prune = app.Spec.SyncPolicy.prune()
		apps = append(apps, a)
		if w, ok := app.Metadata.Annotations[syncWaveAnnotation]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(w))
			if err == nil {
				dir := dirOf(o.file)
				if waves[dir] == nil {
					waves[dir] = map[int][]string{}
				}
				waves[dir][n] = append(waves[dir][n], name)
			}
		}
	}
	appWaveDependencies(apps, waves)
	return apps, untranslated
}

// appWaveDependencies makes each app of an app of apps with sync waves
// depend on the apps of the nearest lower wave of its directory.
func appWaveDependencies(apps []App, waves map[string]map[int][]string) {
	for _, byWave := range waves {
		var order []int
		for w := range byWave {
			order = append(order, w)
		}
		sort.Ints(order)
		for i := 1; i < len(order); i++ {
			for _, name := range byWave[order[i]] {
				for j := range apps {
					if apps[j].Name == name {
						apps[j].DependsOn = append(apps[j].DependsOn, byWave[order[i-1]]...)
					}
				}
			}
		}
	}
}

// sameRepo reports whether two git URLs name one repository: scheme,
// credentials, a trailing .git and slashes aside.
func sameRepo(a, b string) bool {
	norm := func(u string) string {
		u = strings.ToLower(strings.TrimSpace(u))
		if _, rest, ok := strings.Cut(u, "://"); ok {
			u = rest
		}
		if at := strings.LastIndex(u, "@"); at >= 0 {
			u = u[at+1:]
		}
		u = strings.Replace(u, ":", "/", 1)
		return strings.TrimSuffix(strings.TrimRight(u, "/"), ".git")
	}
	return norm(a) == norm(b)
}

// syncWaveRoles gives an app translated from Argo CD one role per sync
// wave its objects carry (argocd.argoproj.io/sync-wave; none is wave 0),
// in wave order, claimed by the annotation: what Argo CD syncs in waves,
// roleout rolls out in waves. Objects of the prerequisite step are not
// counted. Fewer than two waves: no roles, and it returns false.
func (a *App) syncWaveRoles(objs []*unstructured.Unstructured, prerequisite func(*unstructured.Unstructured) bool) bool {
	byWave := map[int][]string{} // wave → the annotation values that name it
	for _, o := range objs {
		if prerequisite(o) {
			continue
		}
		v, ok := o.GetAnnotations()[syncWaveAnnotation]
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil {
			n = 0
		}
		if !ok {
			v = ""
		}
		if !slices.Contains(byWave[n], v) {
			byWave[n] = append(byWave[n], v)
		}
	}
	if len(byWave) < 2 {
		return false
	}
	var waves []int
	for w := range byWave {
		waves = append(waves, w)
	}
	sort.Ints(waves)
	a.Roles = []Role{}
	for i, w := range waves {
		values := byWave[w]
		sort.Strings(values)
		name := "wave-" + strconv.Itoa(w)
		if w < 0 {
			name = "wave-minus-" + strconv.Itoa(-w)
		}
		a.Roles = append(a.Roles, Role{Name: name, UpgradeOrder: i + 1, Annotations: map[string][]string{syncWaveAnnotation: values},
			Reason: fmt.Sprintf("Argo CD sync wave %d", w)})
	}
	a.notes = append(a.notes, "roles from the objects' Argo CD sync waves, in wave order")
	return true
}

// hookAnnotation makes a resource an Argo CD hook (PreSync, PostSync, …).
const hookAnnotation = "argocd.argoproj.io/hook"

// argoHooks lists app's Argo CD hooks: roleout has no hook phases; it
// applies them in their wave, as any resource.
func argoHooks(app string, objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		if h := o.GetAnnotations()[hookAnnotation]; h != "" {
			out = append(out, fmt.Sprintf("app %s: %s/%s is an Argo CD %s hook: roleout has no hook phases and applies it in its wave, as any resource", app, o.GetKind(), o.GetName(), h))
		}
	}
	return out
}

// argoApplicationSet is what init reads of an Argo CD ApplicationSet: a
// git directories generator over this repository and its template.
type argoApplicationSet struct {
	Spec struct {
		GoTemplate bool `json:"goTemplate"`
		Generators []struct {
			Git *struct {
				RepoURL     string `json:"repoURL"`
				Directories []struct {
					Path    string `json:"path"`
					Exclude bool   `json:"exclude"`
				} `json:"directories"`
				Files []any `json:"files"`
			} `json:"git"`
		} `json:"generators"`
		Template struct {
			Metadata struct {
				Name       string   `json:"name"`
				Finalizers []string `json:"finalizers"`
			} `json:"metadata"`
			Spec struct {
				Destination struct {
					Namespace string `json:"namespace"`
				} `json:"destination"`
				SyncPolicy argoSyncPolicy `json:"syncPolicy"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// argoParams maps the git directories generator's parameters, in both
// of Argo CD's template syntaxes, to appGenerators' placeholders.
var argoParams = []struct{ from, to string }{
	{"{{.path.basenameNormalized}}", "{{basename}}"}, {"{{path.basenameNormalized}}", "{{basename}}"},
	{"{{.path.basename}}", "{{basename}}"}, {"{{path.basename}}", "{{basename}}"},
	{"{{.path.path}}", "{{path}}"}, {"{{path}}", "{{path}}"},
}

// argoSegmentRE finds {{path[N]}} and {{index .path.segments N}}.
var argoSegmentRE = regexp.MustCompile(`\{\{\s*(?:path\[(\d+)\]|index \.path\.segments (\d+))\s*\}\}`)

// argoTemplate turns an ApplicationSet template string into an
// appGenerators one.
func argoTemplate(s string) string {
	for _, p := range argoParams {
		s = strings.ReplaceAll(s, p.from, p.to)
	}
	return argoSegmentRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := argoSegmentRE.FindStringSubmatch(m)
		return "{{dir " + sub[1] + sub[2] + "}}"
	})
}

// argoGenerators translates ApplicationSets with a git directories
// generator over this repository into appGenerators: the directories and
// excludes, the name and destination namespace templates, automated
// prune, and pruneRemoved when the template carries Argo CD's resources
// finalizer (which deletes an Application's resources with it).
func (g *gitops) argoGenerators(sourceURL string) ([]config.AppGenerator, []string) {
	var out []config.AppGenerator
	var untranslated []string
	for _, o := range g.applicationSets {
		var set argoApplicationSet
		if err := json.Unmarshal(o.raw, &set); err != nil {
			untranslated = append(untranslated, fmt.Sprintf("%s: not an ApplicationSet init can read: %v", o, err))
			continue
		}
		for i, gen := range set.Spec.Generators {
			git := gen.Git
			if git == nil || len(git.Directories) == 0 {
				untranslated = append(untranslated, fmt.Sprintf("%s: generators[%d] is not a git directories generator: roleout's appGenerators make apps from directories only", o, i))
				continue
			}
			if sourceURL != "" && !sameRepo(git.RepoURL, sourceURL) {
				untranslated = append(untranslated, fmt.Sprintf("%s: generators[%d] reads %s, not this repository", o, i, git.RepoURL))
				continue
			}
			ag := config.AppGenerator{Name: argoTemplate(set.Spec.Template.Metadata.Name)}
			for _, d := range git.Directories {
				switch {
				case d.Exclude:
					ag.Exclude = append(ag.Exclude, d.Path)
				case ag.Directories == "":
					ag.Directories = d.Path
				default:
					untranslated = append(untranslated, fmt.Sprintf("%s: generators[%d] directory %s: one pattern per app generator; write another appGenerators entry for it", o, i, d.Path))
				}
			}
			t := set.Spec.Template.Spec
			ag.Template.Namespace = argoTemplate(t.Destination.Namespace)
			ag.Template.Prune = t.SyncPolicy.prune()
			ag.PruneRemoved = slices.Contains(set.Spec.Template.Metadata.Finalizers, "resources-finalizer.argocd.argoproj.io")
			out = append(out, ag)
		}
	}
	return out, untranslated
}
