package ui

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/status"
)

// funcs are the templates' helpers.
var funcs = map[string]any{
	"short": status.Short,
	// rev shortens main@sha1:<40 hex> to main@sha1:<7>.
	"rev": func(s string) string {
		if i := strings.LastIndex(s, ":"); i >= 0 && len(s)-i-1 > 7 {
			return s[:i+8]
		}
		if s == "" {
			return "—"
		}
		return s
	},
	"stamp": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05Z")
	},
	"dur": func(from, to time.Time) string {
		if from.IsZero() || to.IsZero() {
			return "—"
		}
		return to.Sub(from).Round(time.Millisecond).String()
	},
	"clip":        clip,
	"ident":       func(i any) string { return identString(i) },
	"add":         func(a int, b ...int) int { return a + sum(b) },
	"sub":         func(a, b int) int { return a - b },
	"previewName": status.PreviewName,
	// seg escapes a path segment of a link: a name from the status
	// branch never adds a segment of its own.
	"seg": url.PathEscape,
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func identString(i any) string {
	switch v := i.(type) {
	case object.Identity:
		if v.IsZero() {
			return "not predicted"
		}
		return v.String()
	case *object.Identity:
		if v == nil {
			return "—"
		}
		return v.String()
	}
	return fmt.Sprint(i)
}

// overview lists the apps the reader may see, filtered by ?q= (name
// contains) and ?phase=, 200 a page.
func (s *Server) overview(w http.ResponseWriter, r *http.Request, q *request) {
	p := s.base(q, "Apps")
	p.Query, p.Phase = r.URL.Query().Get("q"), r.URL.Query().Get("phase")
	p.Owners = s.store.Owners != nil
	phases := map[string]bool{}
	var rows []overviewRow
	q.access.prefetch(q.snap.Apps)
	for _, a := range q.snap.Apps {
		if !q.visible(a) { // not counted either: how many apps exist is not told
			continue
		}
		p.Total++
		phases[a.Report.Phase] = true
		if p.Query != "" && !strings.Contains(a.Name, p.Query) || p.Phase != "" && a.Report.Phase != p.Phase {
			continue
		}
		rows = append(rows, a.row(q.flights))
	}
	for ph := range phases {
		p.Phases = append(p.Phases, ph)
	}
	sort.Strings(p.Phases)
	from, to, links := pageOf(r, len(rows))
	p.Rows, p.Shown, p.Pages = rows[from:to], len(rows), links
	p.Waiting = s.waiting(p.Total > 0)
	if n := len(p.Waiting); n > maxWaitingShown {
		p.Waiting, p.WaitingMore = p.Waiting[:maxWaitingShown], n-maxWaitingShown
	}
	s.render(w, http.StatusOK, "overview", p)
}

// app shows an app's waves.
func (s *Server) app(w http.ResponseWriter, r *http.Request, q *request) {
	a := s.appOf(w, r, q)
	if a == nil {
		return
	}
	p := s.base(q, a.Name)
	p.A, p.AppName = a, a.Name
	p.Crumbs = []crumb{{a.Name, "/apps/" + a.Name}}
	p.Waves, p.Actions = a.waves(), a.lastActions()
	fl, ok := q.flights[a.Name]
	p.Flight = placeFlight(p.Waves, fl, ok)
	p.Picture = wavesPicture(a.Name, p.Waves)
	s.render(w, http.StatusOK, "app", p)
}

// history shows an app's rollout records.
func (s *Server) history(w http.ResponseWriter, r *http.Request, q *request) {
	a := s.appOf(w, r, q)
	if a == nil {
		return
	}
	p := s.base(q, a.Name+" history")
	p.A, p.AppName = a, a.Name
	p.Crumbs = []crumb{{a.Name, "/apps/" + a.Name}, {"history", "/apps/" + a.Name + "/history"}}
	rows := a.history()
	p.Picture = timelinePicture(rows)
	from, to, links := pageOf(r, len(rows))
	p.History, p.Pages = rows[from:to], links
	s.render(w, http.StatusOK, "history", p)
}

// preview shows a pull request's preview.
func (s *Server) preview(w http.ResponseWriter, r *http.Request, q *request) {
	a := s.appOf(w, r, q)
	if a == nil {
		return
	}
	name := r.PathValue("name")
	i := slices.IndexFunc(a.Previews, func(p status.Preview) bool { return status.PreviewName(p.Ref) == name })
	if i < 0 {
		s.notFound(w, r, q, "app "+a.Name+" has no preview "+strconv.Quote(name)+" on the status branch")
		return
	}
	p := s.base(q, a.Name+" "+a.Previews[i].Ref)
	p.A, p.AppName, p.P = a, a.Name, a.Previews[i]
	p.Crumbs = []crumb{{a.Name, "/apps/" + a.Name}, {a.Previews[i].Ref, r.URL.Path}}
	s.render(w, http.StatusOK, "preview", p)
}

// shownObject is one object of a revision page: its reference and YAML,
// every Secret value replaced unless it is a mask.
type shownObject struct {
	Ref  string
	YAML string
}

// revision shows a role revision's objects, 200 a page.
func (s *Server) revision(w http.ResponseWriter, r *http.Request, q *request) {
	a := s.appOf(w, r, q)
	if a == nil {
		return
	}
	role := r.PathValue("role")
	n, _ := strconv.ParseInt(r.PathValue("n"), 10, 64)
	i := slices.IndexFunc(a.Revisions[role], func(rr revision.RoleRevision) bool { return rr.Number == n })
	if i < 0 {
		s.notFound(w, r, q, fmt.Sprintf("app %s has no revision %q of role %q on the status branch", a.Name, r.PathValue("n"), role))
		return
	}
	rev := a.Revisions[role][i]
	p := s.base(q, rev.Name)
	p.A, p.AppName, p.Role, p.R, p.Live = a, a.Name, role, rev, false
	p.Crumbs = []crumb{{a.Name, "/apps/" + a.Name}, {rev.Name, r.URL.Path}}
	from, to, links := pageOf(r, len(rev.Objects))
	p.Pages = links
	for _, o := range rev.Objects[from:to] {
		p.Objects = append(p.Objects, showObject(o))
	}
	s.render(w, http.StatusOK, "revision", p)
}

// showObject returns o for a page. A Secret's values are masks on the
// status branch; one that is not (the branch is untrusted) is not shown.
func showObject(o map[string]any) shownObject {
	ref := fmt.Sprintf("%v/%v", o["kind"], nameOf(o))
	if o["kind"] == "Secret" {
		o = hideSecretValues(o)
	}
	data, err := yaml.Marshal(o)
	if err != nil {
		return shownObject{Ref: ref, YAML: "(cannot show: " + err.Error() + ")"}
	}
	return shownObject{Ref: ref, YAML: clip(string(data), 64<<10)}
}

func nameOf(o map[string]any) string {
	md, _ := o["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	if ns != "" {
		return ns + "/" + name
	}
	return name
}

// hideSecretValues copies o with every data and stringData value that
// is not a mask replaced.
func hideSecretValues(o map[string]any) map[string]any {
	out := make(map[string]any, len(o))
	for k, v := range o {
		out[k] = v
	}
	for _, field := range []string{"data", "stringData"} {
		v, present := o[field]
		if !present {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok { // not a map of values: nothing of it is shown
			out[field] = "(not shown: not a map of masks)"
			continue
		}
		hidden := make(map[string]any, len(m))
		for k, v := range m {
			if str, ok := v.(string); ok && secrets.IsMasked(str) {
				hidden[k] = str
			} else {
				hidden[k] = "(not shown: not a mask)"
			}
		}
		out[field] = hidden
	}
	return out
}
