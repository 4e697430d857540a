package config

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// AppGenerator makes one app per directory of the source that matches
// Directories and holds a kustomization, as Argo CD's ApplicationSet git
// directory generator does: the app's path is the directory, its name
// and its other fields come from Name and Template, where {{dir N}} (the
// directory's Nth component, from 0), {{path}} and {{basename}} are
// replaced.
type AppGenerator struct {
	// Directories is a slash-separated pattern of directories relative
	// to the repository root, each component a shell pattern
	// (path.Match): apps/*/overlays/prod.
	Directories string `json:"directories"`
	// Exclude are patterns of directories Directories matches that make
	// no app.
	Exclude []string `json:"exclude,omitempty"`
	// Name is the app's name; default {{basename}}.
	Name string `json:"name,omitempty"`
	// Template holds every other field of the apps, as a hand-written
	// app has them (path and name excepted).
	Template App `json:"template,omitempty"`
	// PruneRemoved deletes the objects of an app whose directory left
	// git (in reverse order, as prune does, only the app's own); by
	// default they stay in the cluster. Either way the app's status on
	// the status branch says so (phase Removed).
	PruneRemoved bool `json:"pruneRemoved,omitempty"`
}

// placeholderRE is what a generator's templates may replace.
var placeholderRE = regexp.MustCompile(`\{\{\s*(dir\s+(-?\d+)|path|basename)\s*\}\}`)

// anyPlaceholderRE finds every {{…}} of a template, to refuse the ones
// placeholderRE does not know.
var anyPlaceholderRE = regexp.MustCompile(`\{\{[^}]*\}\}`)

// maxGeneratedApps bounds the apps one generator makes from a commit.
const maxGeneratedApps = 5000

// Generated are the apps of a configuration's generators at one commit.
type Generated struct {
	// Apps are the apps made, by path.
	Apps []App
	// Skipped says which directories made no app, and why (a name that is
	// not a DNS label, or taken).
	Skipped []string
}

// Generate returns the apps c's generators make from dirs, the
// directories of a commit that hold a kustomization (slash-separated,
// relative to the repository root), sorted by path. An app whose name is
// taken (by a written app or an earlier directory) or is not a DNS label
// is skipped, with a reason.
func (c *Config) Generate(dirs []string) Generated {
	var out Generated
	taken := map[string]bool{}
	for _, a := range c.Apps {
		taken[a.Name] = true
	}
	sorted := slices.Clone(dirs)
	sort.Strings(sorted)
	for gi, g := range c.AppGenerators {
		made := 0
		for _, d := range sorted {
			if !matchDir(g.Directories, d) || slices.ContainsFunc(g.Exclude, func(x string) bool { return matchDir(x, d) }) {
				continue
			}
			if made++; made > maxGeneratedApps {
				out.Skipped = append(out.Skipped, fmt.Sprintf("appGenerators[%d]: more than %d directories match %s: the rest make no app", gi, maxGeneratedApps, g.Directories))
				break
			}
			app, err := g.app(d)
			switch {
			case err != nil:
				out.Skipped = append(out.Skipped, fmt.Sprintf("%s (appGenerators[%d]): %v", d, gi, err))
				continue
			case taken[app.Name]:
				out.Skipped = append(out.Skipped, fmt.Sprintf("%s (appGenerators[%d]): app name %q is taken by another app: give the generator a name template that tells them apart", d, gi, app.Name))
				continue
			}
			taken[app.Name] = true
			app.Generator = gi + 1
			out.Apps = append(out.Apps, app)
		}
	}
	return out
}

// app is the app g makes for directory dir.
func (g AppGenerator) app(dir string) (App, error) {
	t := g.Template
	t.Name = g.Name
	if t.Name == "" {
		t.Name = "{{basename}}"
	}
	data, err := json.Marshal(t)
	if err != nil {
		return App{}, err
	}
	parts := strings.Split(dir, "/")
	var bad error
	text := placeholderRE.ReplaceAllStringFunc(string(data), func(m string) string {
		sub := placeholderRE.FindStringSubmatch(m)
		var v string
		switch {
		case sub[1] == "path":
			v = dir
		case sub[1] == "basename":
			v = parts[len(parts)-1]
		default:
			n, _ := strconv.Atoi(sub[2])
			if n < 0 {
				n += len(parts)
			}
			if n < 0 || n >= len(parts) {
				bad = fmt.Errorf("{{dir %s}}: the directory has %d components", sub[2], len(parts))
				return m
			}
			v = parts[n]
		}
		q, _ := json.Marshal(v) // a JSON string's content, escaped
		return string(q[1 : len(q)-1])
	})
	if bad != nil {
		return App{}, bad
	}
	var app App
	if err := json.Unmarshal([]byte(text), &app); err != nil {
		return App{}, err
	}
	app.Path = dir
	app.setDefaults()
	if msgs := validation.IsDNS1123Label(app.Name); len(msgs) > 0 {
		return App{}, fmt.Errorf("app name %q is not a DNS label: %s", app.Name, strings.Join(msgs, "; "))
	}
	var errs []string
	app.validate("the app", func(field, format string, args ...any) { errs = append(errs, field+": "+fmt.Sprintf(format, args...)) })
	if len(errs) > 0 {
		return App{}, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return app, nil
}

// matchDir reports whether dir matches pattern component by component.
func matchDir(pattern, dir string) bool {
	ps, ds := strings.Split(pattern, "/"), strings.Split(dir, "/")
	if len(ps) != len(ds) {
		return false
	}
	for i := range ps {
		if ok, err := path.Match(ps[i], ds[i]); err != nil || !ok {
			return false
		}
	}
	return true
}

// validateGenerators checks appGenerators: a clean relative pattern,
// placeholders it knows, no path or name in the template.
func (c *Config) validateGenerators(add func(field, format string, args ...any)) {
	for i, g := range c.AppGenerators {
		f := fmt.Sprintf("appGenerators[%d]", i)
		if msg := patternProblem(g.Directories); msg != "" {
			add(f+".directories", "%s", msg)
		}
		for j, x := range g.Exclude {
			if msg := patternProblem(x); msg != "" {
				add(fmt.Sprintf("%s.exclude[%d]", f, j), "%s", msg)
			}
		}
		if g.Template.Path != "" || g.Template.Name != "" {
			add(f+".template", "sets path or name: the path is the directory, the name comes from name")
		}
		data, _ := json.Marshal(g.Template)
		for _, m := range anyPlaceholderRE.FindAllString(g.Name+string(data), -1) {
			if !placeholderRE.MatchString(m) {
				add(f, "%s is not a placeholder roleout knows: use {{dir N}}, {{path}} or {{basename}}", m)
			}
		}
	}
}

// patternProblem says what is wrong with a directories pattern, or "".
func patternProblem(p string) string {
	if p == "" {
		return "required: a pattern of directories such as apps/*/overlays/prod"
	}
	for _, part := range strings.Split(p, "/") {
		if _, err := path.Match(part, ""); err != nil {
			return fmt.Sprintf("%q is not a pattern: %v", p, err)
		}
		if part == ".." || part == "" || part == "." {
			return fmt.Sprintf("%q must be a clean path relative to the repository root, inside it", p)
		}
	}
	return ""
}
