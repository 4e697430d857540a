package main

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// browser starts headless Chromium (Debian's chromium package, which
// hack/ensure-test-tools.sh installs) and returns a tab's context. When
// the test fails, it saves a screenshot of the tab and logs where.
func browser(t *testing.T) context.Context {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("no chromium to drive the web view with: install Debian's chromium package (make test does, through hack/ensure-test-tools.sh): %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(alloc)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() {
		if t.Failed() {
			shot, cancel := context.WithTimeout(ctx, 10*time.Second)
			if png, err := chromedp.Run(shot, chromedp.FullScreenshot(100)); err == nil {
				path := filepath.Join(os.TempDir(), "roleout-"+t.Name()+".png")
				if os.WriteFile(path, png, 0o644) == nil {
					t.Logf("screenshot of the failed page: %s", path)
				}
			}
			cancel()
		}
		cancelTime()
		cancelTab()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// TestWebViewInBrowser opens the view in headless Chromium: the overview
// lists the app; its page, open while the agent rolls a commit out,
// shows the waves advance without a reload (the page's own state
// survives) up to the failing health gate's message; the live badge
// says the stream is on. With ROLEOUT_UI_SCREENSHOT set it writes the
// README's screenshot of the app page there.
func TestWebViewInBrowser(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "view-browser")
	files := func(tag string, stuck bool) map[string]string {
		out := map[string]string{}
		for p, data := range twoViewApps(tag, tag, stuck) {
			if strings.HasPrefix(p, "apps/ui-b/") {
				out[strings.Replace(p, "apps/ui-b/", "apps/uib/", 1)] = strings.ReplaceAll(data, "ui-b", "ui-br")
			}
		}
		return out
	}
	if _, err := repo.Commit("main", "v1", files("v1", false)); err != nil {
		t.Fatal(err)
	}
	cfgPath := writeConfig(t, repo.URL(), "- {name: shop, path: apps/uib, namespace: ui-br, timeout: 8s}\n")
	if code, _, errOut := cli("run", "--once", "--config", cfgPath); code != exitOK {
		t.Fatalf("run --once: %d %s", code, errOut)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := logrus.New()
	log.SetOutput(io.Discard)
	view, err := newView(ctx, cfg, "127.0.0.1:0", 100*time.Millisecond, log)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(view)
	t.Cleanup(hs.Close) // after the browser, whose event stream it would wait for

	tab := browser(t)
	if err := chromedp.Do(tab, chromedp.Navigate(hs.URL+"/")); err != nil {
		t.Fatal(err)
	}
	overview, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#app-shop")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(overview, "Succeeded") {
		t.Errorf("the overview's row of shop: %q", overview)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(hs.URL+"/apps/shop"), chromedp.WaitVisible(chromedp.CSS("#live.on"))); err != nil {
		t.Fatal(err)
	}
	badge, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#live")))
	if err != nil {
		t.Fatal(err)
	}
	// A mark a reload would wipe.
	if _, err := chromedp.Run(tab, chromedp.Evaluate[int](`window.roleoutMark = 42`)); err != nil {
		t.Fatal(err)
	}
	if badge != "live" {
		t.Errorf("live badge %q", badge)
	}

	// The commit rolls out while the page is open: wave 1 applies
	// revision 2, wave 2's role never gets ready.
	if _, err := repo.Commit("main", "v2", files("v2", true)); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { code, _, _ := cli("run", "--once", "--config", cfgPath); done <- code }()
	if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.Search(`//section[@id="wave-1"]//a[text()="2"]`))); err != nil {
		t.Fatalf("wave 1 did not advance to revision 2 on the open page: %v", err)
	}
	wave1, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#wave-1")))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.Search(`//p[@class="waits" and contains(., "health gate")]`))); err != nil {
		t.Fatalf("wave 2 did not show its failing health gate on the open page: %v", err)
	}
	waits, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#wave-2 .waits")))
	if err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != exitError {
		t.Errorf("run --once with role b stuck: exit %d, want %d", code, exitError)
	}
	if !strings.Contains(wave1, "Applied") || !strings.Contains(wave1, "= predicted") {
		t.Errorf("wave 1 after the rollout: %q", wave1)
	}
	if !strings.Contains(waits, "Deployment/ui-br/b") {
		t.Errorf("wave 2 waits on %q, want its health gate's message naming Deployment/ui-br/b", waits)
	}
	mark, err := chromedp.Run(tab, chromedp.Evaluate[int](`window.roleoutMark || 0`))
	if err != nil {
		t.Fatal(err)
	}
	refreshed, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.body.dataset.refreshed || "0"`))
	if err != nil {
		t.Fatal(err)
	}
	if mark != 42 || refreshed == "0" {
		t.Errorf("the page was reloaded (mark %d) or never refreshed in place (%s refreshes)", mark, refreshed)
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
}
