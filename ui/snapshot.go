package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/status"
)

// Snapshot is what the view shows: every app of the config as one read of
// the status branch found it.
type Snapshot struct {
	// Commit is the status branch commit read ("" when the branch does
	// not exist yet), and Read when.
	Commit string
	Read   time.Time
	// Branch names the status branch.
	Branch string
	// Err says why the last read failed; the apps are then those of the
	// read before it (none at first).
	Err  string
	Apps []*App

	byName map[string]*App
}

// App is one app of a Snapshot.
type App struct {
	Name      string
	Namespace string
	Path      string
	// Scope is where the app writes, as its config and its records say
	// (declaredScope, recordedScope): a reader sees the app only if they
	// may read in all of it.
	Scope Scope
	// recordedScope is the part of Scope its records give.
	recordedScope Scope
	// Report is its phase, revision, drift and roles, as roleout status
	// shows them, with its owner when the Store reads owners.
	Report status.Report
	// recorded is Report as the status branch has it, before owners.
	recorded status.Report
	// Status is its status.yaml; nil when it has none yet, or it does not
	// parse (Problems says so).
	Status *status.App
	// Rollouts are the records of history.yaml, newest first.
	Rollouts []status.Rollout
	// Revisions are each role's recorded revisions, oldest first.
	Revisions map[string][]revision.RoleRevision
	// Previews are the pull-request previews, by ref.
	Previews []status.Preview
	// Problems say what of the app's files could not be read, for the
	// page to say so; what could be read is shown.
	Problems []string
	// Version changes whenever any of the app's files does: the live
	// stream sends an event for the app when it does.
	Version string
}

// App returns the app called name, or nil.
func (s *Snapshot) App(name string) *App {
	if s == nil {
		return nil
	}
	return s.byName[name]
}

// NewSnapshot builds the snapshot of apps from reads (by app name) of the
// status branch at commit. It never fails: a file that does not parse is
// a problem of its app's, and the rest is shown. An app whose files are
// those of prev's (nil for none) is prev's, not parsed again: a status
// commit changes one app's files, not a thousand.
func NewSnapshot(branch, commit string, apps []config.App, reads map[string]status.Read, now time.Time, prev *Snapshot) *Snapshot {
	s := &Snapshot{Commit: commit, Read: now, Branch: branch, byName: map[string]*App{}}
	for _, a := range apps {
		read := reads[a.Name]
		v := version(read)
		app := prev.App(a.Name)
		if app == nil || app.Version != v || app.Namespace != a.NamespaceOrDefault() || app.Path != a.Path || !app.Scope.equal(app.recordedScope.union(declaredScope(a))) {
			app = newApp(a, read, v)
		}
		s.Apps = append(s.Apps, app)
		s.byName[a.Name] = app
	}
	return s
}

// newApp reads what it can of one app's files, whose version is v.
func newApp(a config.App, read status.Read, v string) *App {
	app := &App{Name: a.Name, Namespace: a.NamespaceOrDefault(), Path: a.Path, Version: v}
	rec, err := status.Parse(read, a.Name)
	parsed := err == nil
	if !parsed {
		// One broken file must not hide the others: read each on its own.
		app.Problems = append(app.Problems, err.Error())
		rec = &status.Records{App: a.Name, Files: read.Files, Refused: status.Condition(read)}
		if data, ok := read.Files[status.StatusPath(a.Name)]; ok {
			if st, err := status.ParseApp(data, status.StatusPath(a.Name)); err == nil {
				rec.Status = st
			}
		}
	}
	if rec.Files == nil {
		rec.Files = map[string][]byte{}
	}
	app.recordedScope = recordedScope(read, rec, parsed)
	app.Scope = app.recordedScope.union(declaredScope(a))
	app.Report = rec.Report()
	app.recorded = app.Report
	app.Status = rec.Status
	app.Revisions = rec.History
	rollouts, err := rec.Rollouts()
	if err != nil {
		app.Problems = append(app.Problems, err.Error())
	}
	for i := len(rollouts) - 1; i >= 0; i-- {
		app.Rollouts = append(app.Rollouts, rollouts[i])
	}
	if _, ok := rec.Files[status.HistoryPath(a.Name)]; !ok && rec.Status != nil {
		app.Problems = append(app.Problems, fmt.Sprintf("the status branch has no %s: no rollout records to show", status.HistoryPath(a.Name)))
	}
	app.Previews, app.Problems = previews(a.Name, rec.Files, app.Problems)
	return app
}

// keepOwner gives a, newly read from the status branch, the owner old
// (its earlier read, nil for none) was shown with, until the owners are
// read again: an app no live replica holds stays Unowned.
func (a *App) keepOwner(old *App) {
	if old == nil {
		return
	}
	a.Report.Owner = old.Report.Owner
	if old.Report.Phase == status.PhaseUnowned {
		a.Report.Unowned(derefTime(old.Report.UnownedSince))
	}
}

func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// previews reads the app's previews/*.json; one that does not parse is a
// problem.
func previews(app string, files map[string][]byte, problems []string) ([]status.Preview, []string) {
	var out []status.Preview
	dir := path.Dir(status.PreviewPath(app, "x", ".json")) + "/"
	for name := range files {
		rest, ok := strings.CutPrefix(name, dir)
		if !ok || strings.Contains(rest, "/") || !strings.HasSuffix(rest, ".json") {
			continue
		}
		p, ok := status.ReadPreview(files, app, strings.TrimSuffix(rest, ".json"))
		if !ok {
			problems = append(problems, fmt.Sprintf("status branch file %s is not a valid preview", name))
			continue
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref < out[j].Ref })
	return out, problems
}

// version digests what a read found: its files (paths and contents) and
// its error.
func version(read status.Read) string {
	names := make([]string, 0, len(read.Files))
	for n := range read.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(read.Files[n]))
		h.Write(read.Files[n])
	}
	if read.Err != nil {
		fmt.Fprintf(h, "\x01%s", read.Err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
