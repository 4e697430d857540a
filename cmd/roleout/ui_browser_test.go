package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// browser starts headless Chromium (Debian's chromium package, which
// hack/ensure-test-tools.sh installs) and returns a tab's context and a
// count of the JavaScript dialogs pages opened (each is dismissed: a
// page's alert means repository text ran as script). When the test
// fails, it saves a screenshot of the tab and logs where.
//
// On a loaded machine Chromium can die while it starts. A start that
// failed is retried with a new allocator and tab: chromedp must never
// be asked to allocate twice on one tab's context (a second Allocate
// after a browser that exited closes the context's channel twice and
// panics the whole test binary).
func browser(t *testing.T) (context.Context, *atomic.Int32) {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("no chromium to drive the web view with: install Debian's chromium package (make test does, through hack/ensure-test-tools.sh): %v", err)
	}
	dialogs := &atomic.Int32{}
	var errs []string
	for attempt := 1; attempt <= 3; attempt++ {
		tab, stop, err := startBrowser(bin, t.TempDir(), dialogs)
		if err != nil {
			errs = append(errs, fmt.Sprintf("attempt %d: %v", attempt, err))
			continue
		}
		if attempt > 1 {
			t.Logf("chromium started on attempt %d (%s)", attempt, strings.Join(errs, "; "))
		}
		ctx, cancelTime := context.WithTimeout(tab, 4*time.Minute)
		t.Cleanup(func() {
			if t.Failed() {
				saveFailedPage(t, tab)
			}
			cancelTime()
			stop()
		})
		return ctx, dialogs
	}
	t.Fatalf("start chromium: %s", strings.Join(errs, "; "))
	return nil, nil
}

// startBrowser starts one Chromium with its profile in dir and returns
// its tab, whose context the browser lives as long as, and the function
// that stops both. On an error everything it started is stopped.
func startBrowser(bin, dir string, dialogs *atomic.Int32) (context.Context, func(), error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.UserDataDir(dir), chromedp.WindowSize(1400, 1000),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	var tab context.Context
	tab, cancelTab := chromedp.NewContext(alloc, chromedp.WithListener(func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
			go func() {
				_, _ = chromedp.Call(tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}()
		}
	}))
	stop := func() {
		cancelTab()
		cancelAlloc()
	}
	// The first run starts the browser, which lives as long as its
	// context: the tab's, not the timed one the test's steps get. It is
	// bounded here without a deadline on the tab.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(tab) }()
	select {
	case err := <-started:
		if err != nil {
			stop()
			return nil, nil, err
		}
		return tab, stop, nil
	case <-time.After(time.Minute):
		stop()
		<-started
		return nil, nil, fmt.Errorf("no browser after a minute")
	}
}

// saveFailedPage saves a screenshot of the failed test's tab and logs
// where, with the page's address and text.
func saveFailedPage(t *testing.T, tab context.Context) {
	shot, cancel := context.WithTimeout(tab, 10*time.Second) // the test's context may have timed out
	defer cancel()
	if png, err := chromedp.Run(shot, chromedp.FullScreenshot(100)); err == nil {
		path := filepath.Join(os.TempDir(), "roleout-"+strings.ReplaceAll(t.Name(), "/", "-")+".png")
		if os.WriteFile(path, png, 0o644) == nil {
			t.Logf("screenshot of the failed page: %s", path)
		}
	}
	if text, err := chromedp.Run(shot, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`)); err == nil {
		t.Logf("the failed page:\n%s", text)
	}
}

// pageText returns the text of what sel selects on the tab's page.
func pageText(t *testing.T, tab context.Context, sel string) string {
	t.Helper()
	text, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return text
}

// evaluate returns the value of the JavaScript expression js on the tab.
func evaluate[T any](t *testing.T, tab context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

const (
	// prSecret is a Secret value a pull request adds: never on a page.
	prSecret = "hunter2-plaintext-value"
	// prHTML is repository text that would run if a page did not escape it.
	prHTML = `<img src=x onerror=alert(1)>`
)

// browserRepo returns app shop's files at tag (threeWaves in namespace
// ui-br; role b never ready when stuck); with pr, role a gains a Secret
// and role c's ConfigMap a value of HTML, and c a new image.
func browserRepo(tag string, stuck, pr bool) map[string]string {
	out := map[string]string{}
	for p, data := range twoViewApps(tag, tag, stuck) {
		if !strings.HasPrefix(p, "apps/ui-b/") {
			continue
		}
		data = strings.ReplaceAll(data, "ui-b", "ui-br")
		if pr && strings.HasSuffix(p, "/a.yaml") {
			data += "---\napiVersion: v1\nkind: Secret\nmetadata: {name: a-secret, annotations: {roleout.dev/role: a}}\nstringData: {password: " + prSecret + "}\n"
		}
		if pr && strings.HasSuffix(p, "/c.yaml") {
			data = strings.Replace(data, "data: {tag: \""+tag+"\"}", fmt.Sprintf("data: {tag: %q, note: %q}", tag, prHTML), 1)
			data = strings.Replace(data, "c:"+tag, "c:"+tag+"-pr", 1)
		}
		out[strings.Replace(p, "apps/ui-b/", "apps/uib/", 1)] = data
	}
	return out
}

// TestWebViewInBrowser runs roleout run, which serves the view beside
// /metrics, and opens it in headless Chromium: the overview lists the
// app; its page, open while the agent rolls a commit out, shows the
// waves advance without a reload (the page's own state survives): wave
// 1 to its new revision, wave 2's progress bar while its health gate
// waits, then the gate's message; history shows each workload observed
// as predicted; a pull request's preview shows its roles in order, a
// Secret's value never, repository HTML as text, and a preview that
// failed its error, HTML in it as text. With ROLEOUT_UI_SCREENSHOT set it
// writes the README's screenshot of the app page there.
func TestWebViewInBrowser(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "view-browser")
	if _, err := repo.Commit("main", "v1", browserRepo("v1", false, false)); err != nil {
		t.Fatal(err)
	}
	for n, files := range map[int]map[string]string{
		1: browserRepo("v1", false, true),
		2: {"apps/uib/kustomization.yaml": "resources: [cm.yaml]\n", "apps/uib/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + fmt.Sprintf("%q", prHTML) + "}\n"},
	} {
		head, err := repo.Commit(fmt.Sprintf("pr-%d", n), "a pull request", files)
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.PullRequest(n, head); err != nil {
			t.Fatal(err)
		}
	}
	cfgPath := writeConfig(t, repo.URL(), "- {name: shop, path: apps/uib, namespace: ui-br, timeout: 10s}\nschedule: {interval: 1s}\nhttp: {address: \"127.0.0.1:0\"}\n")
	setPullRequests(t, cfgPath, "")
	logs, agent := startAgent(t, cfgPath)
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if m := regexp.MustCompile(`address="?(127\.0\.0\.1:\d+)`).FindStringSubmatch(logs.String()); m != nil {
			base = "http://" + m[1]
		}
	}
	if base == "" {
		t.Fatalf("roleout run did not say where it serves:\n%s", logs.String())
	}
	if resp, err := http.Get(base + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/healthz beside the view: %v %v", resp, err)
	}

	tab, dialogs := browser(t)
	if err := chromedp.Do(tab, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.Search(`//tr[@id="app-shop"]//span[text()="Succeeded"]`))); err != nil {
		t.Fatalf("the overview never showed shop Succeeded: %v", err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(base+"/apps/shop"), chromedp.WaitVisible(chromedp.CSS("#live.on"))); err != nil {
		t.Fatal(err)
	}
	if badge := pageText(t, tab, "#live"); badge != "live" {
		t.Errorf("live badge %q", badge)
	}
	evaluate[int](t, tab, `window.roleoutMark = 42`) // a mark a reload would wipe

	// The commit rolls out while the page is open: wave 1 applies
	// revision 2, wave 2's role never gets ready.
	if _, err := repo.Commit("main", "v2", browserRepo("v2", true, false)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.Search(`//section[@id="wave-1"]//a[text()="2"]`))); err != nil {
		t.Fatalf("wave 1 did not advance to revision 2 on the open page: %v", err)
	}
	if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`#wave-2 .flight[data-step="waiting"]`))); err != nil {
		t.Fatalf("wave 2's progress bar did not show its health wait: %v", err)
	}
	flight := pageText(t, tab, "#wave-2 .flight")
	ready := evaluate[float64](t, tab, `document.querySelector("#wave-2 progress.f-ready").value`)
	written := evaluate[float64](t, tab, `document.querySelector("#wave-2 progress.f-applied").value`)
	if !strings.Contains(flight, "wave 2 of 3 (upgradeOrder 2: b)") || !strings.Contains(flight, "2 of 2 objects written") || ready != 1 || written != 2 {
		t.Errorf("wave 2 in flight: %q, bars written %v ready %v; want 2 written, 1 ready (b's ConfigMap, not its Deployment)", flight, written, ready)
	}
	if out := os.Getenv("ROLEOUT_UI_SCREENSHOT"); out != "" {
		png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.Search(`//section[@id="wave-2"]//p[@class="waits" and contains(., "health gate")]`))); err != nil {
		t.Fatalf("wave 2 did not show its failing health gate on the open page: %v", err)
	}
	wave1, waits := pageText(t, tab, "#wave-1"), pageText(t, tab, "#wave-2 .waits")
	if !strings.Contains(wave1, "Applied") || !strings.Contains(wave1, "= predicted") {
		t.Errorf("wave 1 after the rollout: %q", wave1)
	}
	if !strings.Contains(waits, "Deployment/ui-br/b") {
		t.Errorf("wave 2 waits on %q, want its health gate's message naming Deployment/ui-br/b", waits)
	}
	if mark, refreshed := evaluate[int](t, tab, `window.roleoutMark || 0`), evaluate[string](t, tab, `document.body.dataset.refreshed || "0"`); mark != 42 || refreshed == "0" {
		t.Errorf("the page was reloaded (mark %d) or never refreshed in place (%s refreshes)", mark, refreshed)
	}

	// History: v1's rollout observed each Deployment as predicted.
	if err := chromedp.Do(tab, chromedp.Navigate(base+"/apps/shop/history")); err != nil {
		t.Fatal(err)
	}
	oldest := pageText(t, tab, "section.rollout:last-of-type")
	if n := strings.Count(oldest, "= predicted"); n != 3 || strings.Contains(oldest, "≠") {
		t.Errorf("v1's record shows %d workloads observed as predicted, want 3:\n%s", n, oldest)
	}

	// Pull request 1: roles in order, c restarts, the Secret masked, the
	// repository's HTML shown as text.
	if err := chromedp.Do(tab, chromedp.Navigate(base+"/apps/shop/previews/pull-1-head")); err != nil {
		t.Fatal(err)
	}
	roles := evaluate[[]string](t, tab, `Array.from(document.querySelectorAll("table.roles tbody tr td:nth-child(2)")).map(td => td.textContent)`)
	if strings.Join(roles, ",") != "a,b,c" {
		t.Errorf("the preview's roles %v, want a,b,c in upgradeOrder", roles)
	}
	html := evaluate[string](t, tab, `document.documentElement.outerHTML`)
	text := evaluate[string](t, tab, `document.body.innerText`)
	if strings.Contains(html, prSecret) {
		t.Error("the preview page carries the Secret's value")
	}
	if !strings.Contains(text, "Secret/ui-br/a-secret") || !strings.Contains(text, prHTML) || !strings.Contains(text, "Deployment/c →") {
		t.Errorf("the preview page lacks the Secret, the HTML as text or c's restart:\n%s", text)
	}
	// Pull request 2 names an object with HTML: its preview fails, and
	// says so with the name as text.
	if err := chromedp.Do(tab, chromedp.Navigate(base+"/apps/shop/previews/pull-2-head")); err != nil {
		t.Fatal(err)
	}
	if text := pageText(t, tab, "main"); !strings.Contains(text, prHTML) {
		t.Errorf("the failed preview's page does not show the name as text:\n%s", text)
	}
	for _, path := range []string{"/apps/shop/previews/pull-1-head", "/apps/shop/previews/pull-2-head"} {
		if err := chromedp.Do(tab, chromedp.Navigate(base+path)); err != nil {
			t.Fatal(err)
		}
		if n := evaluate[int](t, tab, `document.querySelectorAll("img").length`); n != 0 {
			t.Errorf("%s: %d img elements from repository text", path, n)
		}
	}
	if n := dialogs.Load(); n != 0 {
		t.Errorf("pages opened %d JavaScript dialogs: repository text ran as script", n)
	}

	// The agent goes away: the open page says it lost its live updates
	// and polls.
	if err := chromedp.Do(tab, chromedp.Navigate(base+"/apps/shop"), chromedp.WaitVisible(chromedp.CSS("#live.on"))); err != nil {
		t.Fatal(err)
	}
	_ = agent.Process.Kill()
	if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS("#live.polling"))); err != nil {
		t.Fatalf("the page did not fall back to polling when the stream dropped: %v", err)
	}
	if badge := pageText(t, tab, "#live"); badge != "live updates lost: polling every 5 s" {
		t.Errorf("badge after the stream dropped: %q", badge)
	}
}
