package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/statusstore"
)

// maxGeneratorEntries bounds the entries of a checkout walked for the
// directories a generator may match.
const maxGeneratorEntries = 200000

// generatedIndex is the status branch's record of the apps the
// generators made at the last poll (name, path, generator), so that a
// restarted agent, or a roleout run --once, knows an app whose directory
// left git: an app name cannot start with "_", so the folder is no app's.
const generatedIndex = "_generated/apps.yaml"

// generatedApp is one entry of generatedIndex.
type generatedApp struct {
	Name      string `json:"name"`
	Path      string `json:"path"`
	Generator int    `json:"generator"`
}

// generate serves, from this poll, the apps the config's generators make
// at snap (config.Generate over the directories of snap that hold a
// kustomization): an app whose directory appeared is added; one whose
// directory left git (known from this process or from generatedIndex)
// stays, marked Removed, until its reconcile has recorded phase Removed
// (it renders nothing and prunes its objects when its generator says
// pruneRemoved), then goes. Written apps are never touched. The index is
// written when the set changes, and keeps a removed app until its removal
// is recorded.
func (a *Agent) generate(ctx context.Context, snap sources.Snapshot) {
	if len(a.cfg.AppGenerators) == 0 {
		return
	}
	dirs, err := kustomizationDirs(snap.Dir)
	if err != nil {
		a.log.WithError(err).Warn("appGenerators: the checkout's directories could not be listed; the generated apps stay as they were")
		return
	}
	gen := a.cfg.Generate(dirs)
	known := a.knownGenerated(ctx)
	a.mu.Lock()
	next := *a.cfg
	next.Apps = nil
	made := map[string]bool{}
	for _, app := range gen.Apps {
		made[app.Name] = true
		delete(a.gone, app.Name)
	}
	var index []generatedApp
	for _, app := range a.cfg.Apps {
		if app.Generator == 0 {
			next.Apps = append(next.Apps, app)
		}
	}
	for _, k := range known {
		if made[k.Name] || a.gone[k.Name] || k.Generator < 1 || k.Generator > len(a.cfg.AppGenerators) {
			continue
		}
		g := a.cfg.AppGenerators[k.Generator-1]
		app := a.removedApp(k, g)
		next.Apps = append(next.Apps, app)
		index = append(index, k)
	}
	for _, app := range gen.Apps {
		next.Apps = append(next.Apps, app)
		index = append(index, generatedApp{Name: app.Name, Path: app.Path, Generator: app.Generator})
	}
	for _, s := range gen.Skipped {
		if !a.skipped[s] {
			a.log.Warn("appGenerators: " + s)
		}
	}
	a.skipped = map[string]bool{}
	for _, s := range gen.Skipped {
		a.skipped[s] = true
	}
	changed := !slices.Equal(appNames(a.cfg), appNames(&next))
	a.cfg = &next
	if a.replica != nil && changed {
		a.replica.SetApps(appNames(&next))
	}
	notify := a.appsChanged
	a.mu.Unlock()
	if changed && notify != nil {
		notify(next.Apps)
	}
	a.writeIndex(ctx, index, known)
}

// removedApp is the app of entry k, whose directory left git: it renders
// nothing, prunes its objects when g says pruneRemoved, and records phase
// Removed.
func (a *Agent) removedApp(k generatedApp, g config.AppGenerator) config.App {
	for _, app := range a.cfg.Apps {
		if app.Name == k.Name && app.Generator > 0 {
			app.Removed, app.AllowEmpty, app.Prune = true, true, g.PruneRemoved
			return app
		}
	}
	app := config.App{Name: k.Name, Path: k.Path, Generator: k.Generator}
	written := *a.cfg
	written.Apps = nil
	if made := written.Generate([]string{k.Path}).Apps; len(made) == 1 {
		app = made[0] // the template's namespace and destinations, for the prune
	} else {
		config.SetAppDefaults(&app)
	}
	app.Removed, app.AllowEmpty, app.Prune = true, true, g.PruneRemoved
	a.log.WithField("app", k.Name).Infof("appGenerators: %s left git: the app is removed (pruneRemoved: %v)", k.Path, g.PruneRemoved)
	return app
}

// knownGenerated returns the generated apps of the last poll: this
// process's, else generatedIndex's.
func (a *Agent) knownGenerated(ctx context.Context) []generatedApp {
	a.mu.Lock()
	var out []generatedApp
	for _, app := range a.cfg.Apps {
		if app.Generator > 0 {
			out = append(out, generatedApp{Name: app.Name, Path: app.Path, Generator: app.Generator})
		}
	}
	indexed := a.indexed
	a.mu.Unlock()
	if len(out) > 0 || indexed != nil {
		return append(out, indexed...)
	}
	read, err := a.deps.Status.Read(ctx, path.Dir(generatedIndex))
	if err != nil {
		a.log.WithError(err).Warn("appGenerators: the index of generated apps could not be read: an app whose directory left git meanwhile keeps its objects")
		return nil
	}
	var idx []generatedApp
	if data := read.Files[generatedIndex]; len(data) > 0 {
		if err := yaml.UnmarshalStrict(data, &idx); err != nil {
			a.log.WithError(err).Warn("appGenerators: the index of generated apps is not readable; ignored")
			return nil
		}
	}
	a.mu.Lock()
	a.indexed = idx
	a.mu.Unlock()
	return idx
}

// writeIndex records index as generatedIndex when it differs from what
// was known.
func (a *Agent) writeIndex(ctx context.Context, index, known []generatedApp) {
	sort.Slice(index, func(i, j int) bool { return index[i].Name < index[j].Name })
	sort.Slice(known, func(i, j int) bool { return known[i].Name < known[j].Name })
	if slices.Equal(index, known) || a.dryRun {
		return
	}
	data, err := yaml.Marshal(index)
	if err != nil {
		return
	}
	if _, err := a.deps.Status.Commit(ctx, map[string][]byte{generatedIndex: data}, a.signed(fmt.Sprintf("roleout: %d generated apps", len(index)))); err != nil && !errors.Is(err, statusstore.ErrNoChange) {
		a.log.WithError(err).Warn("appGenerators: the index of generated apps was not recorded; the next poll tries again")
		return
	}
	a.mu.Lock()
	a.indexed = index
	a.mu.Unlock()
}

// OnAppsChanged makes fn hear the apps the agent serves whenever its
// generators change them (the web view's list).
func (a *Agent) OnAppsChanged(fn func([]config.App)) {
	a.mu.Lock()
	a.appsChanged = fn
	a.mu.Unlock()
}

// removed records that a generated app's removal was recorded: the next
// poll drops it.
func (a *Agent) removed(app string) {
	a.mu.Lock()
	a.gone[app] = true
	a.mu.Unlock()
	a.drift.Forget(app)
}

// removedMessage says what became of a removed app's objects.
func removedMessage(app config.App) string {
	if app.Prune {
		return fmt.Sprintf("%s left git and its generator no longer makes the app: its objects were pruned (appGenerators pruneRemoved)", app.Path)
	}
	return fmt.Sprintf("%s left git and its generator no longer makes the app: its objects were left in the cluster (set pruneRemoved on the generator to delete them)", app.Path)
}

// kustomizationDirs returns the directories under root (slash-separated,
// relative to it) that hold a kustomization, hidden directories skipped
// and symbolic links not followed.
func kustomizationDirs(root string) ([]string, error) {
	var out []string
	entries := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entries++; entries > maxGeneratorEntries {
			return fmt.Errorf("more than %d entries in the checkout", maxGeneratorEntries)
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		switch d.Name() {
		case "kustomization.yaml", "kustomization.yml", "Kustomization":
			if d.Type().IsRegular() {
				rel, err := filepath.Rel(root, filepath.Dir(p))
				if err != nil {
					return err
				}
				if rel = filepath.ToSlash(rel); len(out) == 0 || out[len(out)-1] != rel {
					out = append(out, rel)
				}
			}
		}
		return nil
	})
	return out, err
}
