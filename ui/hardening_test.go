package ui

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/status"
)

// TestResumeFromAnotherProcess: a stream that resumes with an id this
// store never gave (a restart, another replica) is told to reload, not
// left waiting for ids it will never reach.
func TestResumeFromAnotherProcess(t *testing.T) {
	_, hs := newTestServer(t, fixture(t), "shop")
	for _, id := range []string{"1", "99999999999999999"} {
		s := openSSE(t, hs.URL+"/events", id)
		if _, name, _ := s.next(t); name != "reload" {
			t.Errorf("resume from %s: %q, want reload", id, name)
		}
	}
}

// TestOpenViewAnswersLoopbackHostsOnly: without authentication the view
// refuses a request addressed to another name (DNS rebinding).
func TestOpenViewAnswersLoopbackHostsOnly(t *testing.T) {
	_, hs := newTestServer(t, fixture(t), "shop")
	for host, want := range map[string]int{"attacker.example": http.StatusMisdirectedRequest, "attacker.example:80": http.StatusMisdirectedRequest,
		"localhost:8090": http.StatusOK, "127.0.0.1": http.StatusOK, "[::1]:8090": http.StatusOK} {
		req, _ := http.NewRequest("GET", hs.URL+"/api/v1/apps", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || (want != 200 && strings.Contains(string(body), "shop")) {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}

// TestBearer: the Authorization header's bearer token in any case of its
// scheme, else the cookie the login page wrote (URI-encoded), also
// behind another kind of Authorization header.
func TestBearer(t *testing.T) {
	for _, tc := range []struct {
		header, cookie, want string
	}{
		{"Bearer abc", "", "abc"},
		{"bearer abc", "", "abc"},
		{"", url.QueryEscape("a+b/c="), "a+b/c="},
		{"Basic dXNlcjpwYXNz", url.QueryEscape("tok"), "tok"},
		{"Basic dXNlcjpwYXNz", "", ""},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if tc.header != "" {
			r.Header.Set("Authorization", tc.header)
		}
		if tc.cookie != "" {
			r.AddCookie(&http.Cookie{Name: TokenCookie, Value: tc.cookie})
		}
		if got := bearer(r); got != tc.want {
			t.Errorf("header %q cookie %q: %q, want %q", tc.header, tc.cookie, got, tc.want)
		}
	}
}

// TestSecretValuesThatAreNotMasks: a Secret's data that is not a map of
// masks is not shown, whatever its shape.
func TestSecretValuesThatAreNotMasks(t *testing.T) {
	for _, data := range []any{"plain-secret-value", []any{"plain-secret-value"}, map[string]any{"k": "plain-secret-value"}} {
		o := showObject(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s"}, "data": data, "stringData": data})
		if strings.Contains(o.YAML, "plain-secret-value") {
			t.Errorf("data %v shown: %s", data, o.YAML)
		}
	}
}

// TestPageLinksRepeatOnlyTheFilter: a page's links to its other pages
// carry the filter and the page, nothing else of the request.
func TestPageLinksRepeatOnlyTheFilter(t *testing.T) {
	r := httptest.NewRequest("GET", "/?q=a&phase=Failed&junk="+strings.Repeat("x", 10000), nil)
	_, _, links := pageOf(r, 3*pageSize)
	if len(links) != 3 {
		t.Fatalf("%d links", len(links))
	}
	for _, l := range links {
		if strings.Contains(l.Href, "junk") || !strings.Contains(l.Href, "q=a") || !strings.Contains(l.Href, "phase=Failed") {
			t.Errorf("link %s", l.Href)
		}
	}
}

// erringBranch reads one app's folder with an error.
type erringBranch struct {
	*fakeBranch
	bad string
}

func (b erringBranch) ReadEach(ctx context.Context, dirs []string) (map[string]status.Read, error) {
	out, err := b.fakeBranch.ReadEach(ctx, dirs)
	if err == nil {
		out[b.bad] = status.Read{Head: b.head, Err: errors.New("read " + b.bad + " from status branch roleout/status: over its limits")}
	}
	return out, err
}

// TestOneFolderOverItsLimits: an app whose folder cannot be read says so
// on its page; the others are shown.
func TestOneFolderOverItsLimits(t *testing.T) {
	log := logrus.New()
	log.SetOutput(io.Discard)
	store := NewStore(erringBranch{fixture(t), "nohist"}, "roleout/status", []config.App{{Name: "shop"}, {Name: "nohist"}}, log)
	store.Refresh(context.Background())
	snap := store.Snapshot()
	if snap.Err != "" || snap.App("shop").Status == nil {
		t.Fatalf("the readable app: err %q, status %v", snap.Err, snap.App("shop").Status)
	}
	if p := snap.App("nohist").Problems; len(p) == 0 || !strings.Contains(p[0], "over its limits") {
		t.Errorf("the app over its limits: problems %v", p)
	}
}

// TestSetApps: a reloaded config's apps are the view's at once: one
// added appears, one removed goes.
func TestSetApps(t *testing.T) {
	store, hs := newTestServer(t, fixture(t), "shop")
	store.SetApps([]config.App{{Name: "nohist", Namespace: "ns-nohist"}})
	store.Refresh(context.Background())
	_, _, body := get(t, hs.URL+"/")
	if !strings.Contains(body, `href="/apps/nohist"`) || strings.Contains(body, `href="/apps/shop"`) {
		t.Errorf("overview after the reload:\n%s", body)
	}
	if code, _, _ := get(t, hs.URL+"/apps/shop"); code != http.StatusNotFound {
		t.Errorf("an app the reload removed: %d", code)
	}
}
