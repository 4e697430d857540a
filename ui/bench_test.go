package ui

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/status"
)

// The sizes docs/benchmarks.md reports the view at: an overview of
// benchApps apps, and an app of benchObjects objects in benchRoles roles,
// a quarter of them Deployments, with benchRollouts records.
const (
	benchApps     = 1000
	benchObjects  = 4000
	benchRoles    = 8
	benchRollouts = 10
)

// benchStatus is a status of roles roles holding objects objects, one in
// four a Deployment observed as predicted.
func benchStatus(app string, roles, objects int) *status.App {
	st := &status.App{APIVersion: "roleout.dev/v1alpha1", Kind: status.Kind, App: app, Path: "apps/" + app,
		SourceRevision: "main@sha1:0123456789abcdef0123456789abcdef01234567", Phase: status.PhaseSucceeded}
	for r := range roles {
		role := &status.Role{Name: fmt.Sprintf("role-%d", r), UpgradeOrder: r + 1, RevisionNumber: 3, RevisionName: fmt.Sprintf("%s-role-%d-5c9f7d8b4", app, r),
			Result: status.RoleApplied, Objects: objects / roles}
		for w := range objects / roles / 4 {
			id := object.Identity{PodTemplateHash: "6d9f8c7b5", ReplicaSetName: fmt.Sprintf("web-%d-%d-6d9f8c7b5", r, w)}
			role.Workloads = append(role.Workloads, status.Workload{WorkloadSummary: model.WorkloadSummary{Kind: "Deployment", Namespace: app, Name: fmt.Sprintf("web-%d-%d", r, w), Predicted: id},
				Observed: &id, Match: true})
		}
		st.Roles = append(st.Roles, role)
	}
	return st
}

// benchHistory is n rollout records of roles roles.
func benchHistory(n, roles int) []status.Rollout {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var out []status.Rollout
	for i := range n {
		rec := status.Rollout{SourceRevision: fmt.Sprintf("main@sha1:%040d", i), Trigger: "poll", Result: status.PhaseSucceeded,
			Started: metav1.NewTime(start.Add(time.Duration(i) * time.Hour)), Finished: metav1.NewTime(start.Add(time.Duration(i)*time.Hour + time.Minute))}
		for r := range roles {
			rec.Waves = append(rec.Waves, status.Wave{UpgradeOrder: r + 1, Result: status.PhaseSucceeded, Elapsed: "5s",
				Roles: []status.RoleRecord{{Name: fmt.Sprintf("role-%d", r), RevisionNumber: int64(i + 1), RevisionName: fmt.Sprintf("x-role-%d-%d", r, i), Action: "update"}}})
		}
		out = append(out, rec)
	}
	return out
}

// benchRevision is role's revision of n ConfigMaps.
func benchRevision(app, role string, n int) revision.RoleRevision {
	rr := revision.RoleRevision{Name: app + "-" + role + "-5c9f7d8b4", Hash: "5c9f7d8b4", Number: 3, Source: "main@sha1:0123456789abcdef"}
	for i := range n {
		rr.Objects = append(rr.Objects, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i), "namespace": app}, "data": map[string]any{"key": "value"}})
	}
	return rr
}

// benchServer serves apps (each with files) from a store already read.
func benchServer(b *testing.B, apps []string, files map[string][]byte) *Server {
	b.Helper()
	var cfgApps []config.App
	for _, a := range apps {
		cfgApps = append(cfgApps, config.App{Name: a, Namespace: a, Path: "apps/" + a})
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	store := NewStore(&fakeBranch{head: "c1", files: files}, "roleout/status", cfgApps, log)
	store.Refresh(context.Background())
	return NewServer(store, Open{}, log)
}

func mustBenchYAML(b *testing.B, v any) []byte {
	data, err := yaml.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// get serves one GET of path and returns the body's length.
func serveBench(b *testing.B, srv *Server, path string) int {
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost"+path, nil)) // unauthenticated: loopback only
	if rec.Code != 200 {
		b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.Len()
}

// benchPage serves path b.N times and reports the page's weight.
func benchPage(b *testing.B, srv *Server, path string) {
	b.ReportAllocs()
	size := 0
	for b.Loop() {
		size = serveBench(b, srv, path)
	}
	b.ReportMetric(float64(size), "page-bytes")
}

// overviewFiles is benchApps apps of 3 roles, each with its history.
func overviewFiles(b *testing.B) ([]string, map[string][]byte) {
	files := map[string][]byte{}
	var apps []string
	history := mustBenchYAML(b, benchHistory(benchRollouts, 3))
	for i := range benchApps {
		app := fmt.Sprintf("app-%04d", i)
		apps = append(apps, app)
		files[status.StatusPath(app)] = mustBenchYAML(b, benchStatus(app, 3, 12))
		files[status.HistoryPath(app)] = history
	}
	return apps, files
}

// BenchmarkOverview serves the overview of benchApps apps (its first page
// of pageSize rows), and of those whose name matches a filter.
func BenchmarkOverview(b *testing.B) {
	apps, files := overviewFiles(b)
	srv := benchServer(b, apps, files)
	b.Run("all", func(b *testing.B) { benchPage(b, srv, "/") })
	b.Run("filtered", func(b *testing.B) { benchPage(b, srv, "/?q=app-09&phase=Succeeded") })
	b.Run("api", func(b *testing.B) { benchPage(b, srv, "/api/v1/apps") })
}

// BenchmarkSnapshot reads benchApps apps' files into a Snapshot: cold,
// every app parsed (the view's first read), and after a status commit
// that changed one app (every later read of a moving branch).
func BenchmarkSnapshot(b *testing.B) {
	apps, files := overviewFiles(b)
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchServer(b, apps, files)
		}
	})
	b.Run("one-app-changed", func(b *testing.B) {
		srv := benchServer(b, apps, files)
		branch := srv.store.branch.(*fakeBranch)
		st := benchStatus(apps[0], 3, 12)
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			n++
			st.Message = fmt.Sprint(n)
			branch.set(fmt.Sprint("c", n+1), map[string][]byte{status.StatusPath(apps[0]): mustBenchYAML(b, st)})
			srv.store.Refresh(context.Background())
		}
		if srv.store.Snapshot().App(apps[0]).Report.Message != fmt.Sprint(n) {
			b.Fatal("the refresh did not read the changed app")
		}
	})
}

// BenchmarkAppPage serves the pages of an app of benchObjects objects:
// its waves, its history and a role revision's first page of objects.
func BenchmarkAppPage(b *testing.B) {
	app := "big"
	files := map[string][]byte{
		status.StatusPath(app):  mustBenchYAML(b, benchStatus(app, benchRoles, benchObjects)),
		status.HistoryPath(app): mustBenchYAML(b, benchHistory(benchRollouts, benchRoles)),
	}
	rr := benchRevision(app, "role-0", benchObjects/benchRoles)
	path, err := status.RevisionPath(app, "role-0", rr.Name)
	if err != nil {
		b.Fatal(err)
	}
	cr, err := rr.ControllerRevision(app, "role-0", "roleout-system")
	if err != nil {
		b.Fatal(err)
	}
	files[path] = mustBenchYAML(b, cr)
	srv := benchServer(b, []string{app}, files)
	if srv.store.Snapshot().App(app).Problems != nil {
		b.Fatalf("the bench app's files: %v", srv.store.Snapshot().App(app).Problems)
	}
	b.Run("waves", func(b *testing.B) { benchPage(b, srv, "/apps/big") })
	b.Run("history", func(b *testing.B) { benchPage(b, srv, "/apps/big/history") })
	b.Run("revision", func(b *testing.B) { benchPage(b, srv, "/apps/big/roles/role-0/revisions/3") })
}
