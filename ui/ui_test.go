package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/status"
)

// fakeBranch is a status branch in memory: a head and files.
type fakeBranch struct {
	mu    sync.Mutex
	head  string
	files map[string][]byte
	err   error
	reads int
}

func (b *fakeBranch) Head(context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.head, b.err
}

func (b *fakeBranch) ReadEach(_ context.Context, dirs []string) (map[string]status.Read, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads++
	out := map[string]status.Read{}
	for _, d := range dirs {
		files := map[string][]byte{}
		for p, data := range b.files {
			if strings.HasPrefix(p, d+"/") {
				files[p] = data
			}
		}
		out[d] = status.Read{Files: files, Head: b.head, Commit: b.head}
	}
	return out, nil
}

func (b *fakeBranch) set(head string, files map[string][]byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.head = head
	for p, data := range files {
		if data == nil {
			delete(b.files, p)
		} else {
			b.files[p] = data
		}
	}
}

const evil = `<script>alert(1)</script><img src=x onerror=alert(2)>`

func mustYAML(t *testing.T, v any) []byte {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// appStatus is a status of three waves: a applied, b failed on its
// health gate, c pending.
func appStatus(app string) *status.App {
	return &status.App{APIVersion: "roleout.dev/v1alpha1", Kind: status.Kind, App: app, Path: "apps/" + app,
		SourceRevision: "main@sha1:0123456789abcdef0123456789abcdef01234567", Phase: status.PhaseFailed,
		Message: "role b: " + evil,
		Roles: []*status.Role{
			{Name: "a", UpgradeOrder: 1, RevisionNumber: 2, RevisionName: app + "-a-5c9f7d8b4", Result: status.RoleApplied, Objects: 2,
				Workloads: []status.Workload{{WorkloadSummary: model.WorkloadSummary{Kind: "Deployment", Name: "a", Predicted: object.Identity{PodTemplateHash: "6d9f8c7b5", ReplicaSetName: "a-6d9f8c7b5"}},
					Observed: &object.Identity{PodTemplateHash: "6d9f8c7b5", ReplicaSetName: "a-6d9f8c7b5"}, Match: true}}},
			{Name: "b", UpgradeOrder: 2, Result: status.RoleFailed, Objects: 1, Message: "Deployment/ns/b: 0 of 2 replicas ready: readiness probe failed"},
			{Name: "c", UpgradeOrder: 3, Result: status.RolePending, Objects: 1},
		},
		Drift: []status.Drift{{Object: "ConfigMap/ns/" + evil, Role: "a", Fields: []string{"data"}, Managers: []string{"kubectl"}}},
	}
}

func newTestServer(t *testing.T, b *fakeBranch, apps ...string) (*Store, *httptest.Server) {
	t.Helper()
	var cfgApps []config.App
	for _, a := range apps {
		cfgApps = append(cfgApps, config.App{Name: a, Namespace: "ns-" + a, Path: "apps/" + a})
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	store := NewStore(b, "roleout/status", cfgApps, log)
	store.Refresh(context.Background())
	srv := NewServer(store, Open{}, log)
	srv.Heartbeat = 50 * time.Millisecond
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return store, hs
}

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

func fixture(t *testing.T) *fakeBranch {
	started := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	history := []status.Rollout{
		{SourceRevision: "main@sha1:aaaa", Trigger: "poll", Started: started, Finished: metav1.NewTime(started.Add(40 * time.Second)), Result: status.PhaseSucceeded,
			Waves: []status.Wave{{UpgradeOrder: 1, Result: status.RoleApplied, Roles: []status.RoleRecord{{Name: "a", RevisionNumber: 1, RevisionName: "shop-a-1", Action: "update"}}}}},
		{SourceRevision: "main@sha1:bbbb", Trigger: "poll", Started: metav1.NewTime(started.Add(time.Hour)), Finished: metav1.NewTime(started.Add(time.Hour + 90*time.Second)), Result: status.PhaseFailed, Message: strings.Repeat("x", 20000),
			Waves: []status.Wave{{UpgradeOrder: 1, Result: status.RoleApplied, Roles: []status.RoleRecord{{Name: "a", RevisionNumber: 2, RevisionName: "shop-a-2", Action: "update"}}}}},
	}
	return &fakeBranch{head: "c1", files: map[string][]byte{
		"shop/status.yaml":  mustYAML(t, appStatus("shop")),
		"shop/history.yaml": mustYAML(t, history),
		// broken: its status.yaml does not parse; no history.yaml
		"broken/status.yaml": []byte("kind: AppStatus\nphase: [not, a, string]\n"),
		// nohist: a status and no history.yaml
		"nohist/status.yaml": mustYAML(t, appStatus("nohist")),
		// an app the config no longer has
		"gone/status.yaml": mustYAML(t, appStatus("gone")),
	}}
}

func TestPagesEscapeAndSayWhatTheyCouldNotRead(t *testing.T) {
	_, hs := newTestServer(t, fixture(t), "shop", "broken", "nohist", "fresh")
	code, h, body := get(t, hs.URL+"/")
	if code != 200 {
		t.Fatalf("GET /: %d\n%s", code, body)
	}
	if h.Get("Content-Security-Policy") != ContentSecurityPolicy || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("security headers: %v", h)
	}
	for _, want := range []string{`href="/apps/shop"`, "Failed", "NotReconciled", `href="/apps/broken"`, "4 of 4 apps"} {
		if !strings.Contains(body, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
	if strings.Contains(body, "gone") {
		t.Error("the overview lists an app the config no longer has")
	}

	code, _, body = get(t, hs.URL+"/apps/shop")
	if code != 200 {
		t.Fatalf("GET /apps/shop: %d\n%s", code, body)
	}
	if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") {
		t.Error("the app page carries the repository's HTML unescaped")
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "<svg", "Wave 2", "waits on its health gate: b: Deployment/ns/b: 0 of 2 replicas ready",
		"waits on an earlier wave: wave 2 failed", "a-6d9f8c7b5", "= predicted", `href="/apps/shop/roles/a/revisions/2"`, "update · 2026-12-01 11:00:00Z"} {
		if !strings.Contains(body, want) {
			t.Errorf("app page lacks %q", want)
		}
	}

	code, _, body = get(t, hs.URL+"/apps/broken")
	if code != 200 || !strings.Contains(body, "could not be read") || !strings.Contains(body, "broken/status.yaml is not a valid status") {
		t.Errorf("a malformed record: %d, want the page and what it could not read\n%s", code, body)
	}
	code, _, body = get(t, hs.URL+"/apps/nohist/history")
	if code != 200 || !strings.Contains(body, "has no nohist/history.yaml") {
		t.Errorf("a missing history file: %d\n%s", code, body)
	}
	code, _, body = get(t, hs.URL+"/apps/shop/history")
	if code != 200 || !strings.Contains(body, "more bytes") || strings.Contains(body, strings.Repeat("x", maxText+1)) {
		t.Errorf("a very long message: %d, want it clipped", code)
	}
	for _, want := range []string{"1 → ", "— → ", "1m30s"} {
		if !strings.Contains(body, want) {
			t.Errorf("history lacks %q", want)
		}
	}
	if code, _, body = get(t, hs.URL+"/apps/gone"); code != 404 || !strings.Contains(body, "not") {
		t.Errorf("an app removed from the config: %d", code)
	}
	if code, _, _ = get(t, hs.URL+"/apps/shop/roles/a/revisions/9"); code != 404 {
		t.Errorf("a revision the branch lacks: %d, want 404", code)
	}
}

func TestReadOnly(t *testing.T) {
	_, hs := newTestServer(t, fixture(t), "shop")
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		req, _ := http.NewRequest(m, hs.URL+"/apps/shop", strings.NewReader("x"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, resp.StatusCode)
		}
	}
}

func TestAPI(t *testing.T) {
	_, hs := newTestServer(t, fixture(t), "shop", "broken")
	code, h, body := get(t, hs.URL+"/api/v1/apps")
	var out struct {
		Commit string   `json:"commit"`
		Apps   []apiApp `json:"apps"`
	}
	if code != 200 || h.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(body), &out) != nil {
		t.Fatalf("GET /api/v1/apps: %d %s", code, body)
	}
	if out.Commit != "c1" || len(out.Apps) != 2 || out.Apps[0].Phase != status.PhaseFailed || out.Apps[0].LastRollout == nil || len(out.Apps[1].Problems) == 0 {
		t.Errorf("apps: %+v", out)
	}
	code, _, body = get(t, hs.URL+"/api/v1/apps/shop")
	if code != 200 || !strings.Contains(body, `"waits": "an earlier wave: wave 2 failed"`) {
		t.Errorf("GET /api/v1/apps/shop: %d %s", code, body)
	}
}

// sse reads the events of a stream.
type sse struct {
	resp *http.Response
	r    *bufio.Reader
}

func openSSE(t *testing.T, url, lastID string) *sse {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	return &sse{resp: resp, r: bufio.NewReader(resp.Body)}
}

// next returns the next event's id, name and data (comments skipped).
func (s *sse) next(t *testing.T) (id, name, data string) {
	t.Helper()
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "" && name != "":
			return id, name, data
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "event: "):
			name = line[7:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		}
	}
}

func TestEventsResumeFromLastEventID(t *testing.T) {
	b := fixture(t)
	store, hs := newTestServer(t, b, "shop", "nohist")
	s := openSSE(t, hs.URL+"/events", "")
	id0, name, _ := s.next(t)
	if name != "hello" {
		t.Fatalf("first event %q", name)
	}
	// A new head that changes shop only: one event, for shop.
	st := appStatus("shop")
	st.Phase = status.PhaseSucceeded
	b.set("c2", map[string][]byte{"shop/status.yaml": mustYAML(t, st)})
	store.Refresh(context.Background())
	id1, name, data := s.next(t)
	if name != "app" || !strings.Contains(data, `"app":"shop"`) || !strings.Contains(data, `"phase":"Succeeded"`) {
		t.Fatalf("event %s %s %s", id1, name, data)
	}
	// The same head again: no read, no event.
	reads := b.reads
	store.Refresh(context.Background())
	if b.reads != reads {
		t.Error("the branch was read again although its head did not move")
	}
	// Two more changes while no stream is open, then a resume from id1:
	// exactly those two.
	s.resp.Body.Close()
	b.set("c3", map[string][]byte{"nohist/status.yaml": nil})
	store.Refresh(context.Background())
	b.set("c4", map[string][]byte{"shop/status.yaml": mustYAML(t, appStatus("shop"))})
	store.Refresh(context.Background())
	s = openSSE(t, hs.URL+"/events", id1)
	_, n1, d1 := s.next(t)
	_, n2, d2 := s.next(t)
	if n1 != "app" || !strings.Contains(d1, "nohist") || n2 != "app" || !strings.Contains(d2, `"app":"shop"`) {
		t.Errorf("resumed events: %s %s / %s %s (after %s)", n1, d1, n2, d2, id0)
	}
	// A failed read is one "branch" event, and the page says why.
	b.mu.Lock()
	b.err = errors.New("connection refused")
	b.mu.Unlock()
	store.Refresh(context.Background())
	store.Refresh(context.Background())
	_, n3, d3 := s.next(t)
	if n3 != "branch" || !strings.Contains(d3, "connection refused") {
		t.Errorf("failed read: %s %s", n3, d3)
	}
	if _, _, body := get(t, hs.URL+"/"); !strings.Contains(body, "connection refused") {
		t.Error("the overview does not say the status branch could not be read")
	}
}

func TestEventsAppFilterAndDroppedHistory(t *testing.T) {
	b := fixture(t)
	store, hs := newTestServer(t, b, "shop", "nohist")
	// More events than are kept: a resume from the first is told to reload.
	for i := 0; i < eventLog+5; i++ {
		st := appStatus("shop")
		st.Message = strings.Repeat("m", i)
		b.set("h"+strings.Repeat("x", i), map[string][]byte{"shop/status.yaml": mustYAML(t, st)})
		store.Refresh(context.Background())
	}
	s := openSSE(t, hs.URL+"/events?app=nohist", "1")
	if _, name, _ := s.next(t); name != "reload" {
		t.Errorf("a resume past the kept events: %q, want reload", name)
	}
	b.set("z1", map[string][]byte{"shop/status.yaml": mustYAML(t, appStatus("shop")), "nohist/status.yaml": nil})
	store.Refresh(context.Background())
	if _, name, data := s.next(t); name != "app" || !strings.Contains(data, "nohist") {
		t.Errorf("?app=nohist got %s %s", name, data)
	}
}
