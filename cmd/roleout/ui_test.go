package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/sirupsen/logrus"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// twoViewApps returns threeWaves apps ui-a and ui-b (namespaces of the
// same names) at tag, ui-b's role b never ready when stuck.
func twoViewApps(tagA, tagB string, stuck bool) map[string]string {
	files := map[string]string{}
	for app, tag := range map[string]string{"ui-a": tagA, "ui-b": tagB} {
		for p, data := range threeWaves(app, tag) {
			if app == "ui-b" && stuck && strings.HasSuffix(p, "/b.yaml") {
				data = strings.Replace(data, "    spec: {containers:", "    spec: {nodeSelector: {no-such-node: \"true\"}, containers:", 1)
			}
			files[strings.Replace(p, "apps/three/", "apps/"+app+"/", 1)] = data
		}
	}
	return files
}

func viewGet(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestWebView rolls two apps out with roleout run --once and serves the
// view of their status branch from the real git server: the overview
// lists both, an app page shows its waves with predicted = observed for
// each Deployment, a failing health gate's message is what its wave
// waits on, a new commit rolled out reaches an open event stream, and
// history shows the revision each role had before and after.
func TestWebView(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "view")
	if _, err := repo.Commit("main", "v1", twoViewApps("v1", "v1", false)); err != nil {
		t.Fatal(err)
	}
	cfgPath := writeConfig(t, repo.URL(), "- {name: ui-a, path: apps/ui-a, namespace: ui-a, timeout: 30s}\n- {name: ui-b, path: apps/ui-b, namespace: ui-b, timeout: 6s}\n")
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
	view, _, err := newView(ctx, cfg, viewOptions{Addr: "127.0.0.1:0", Refresh: 100 * time.Millisecond}, log)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(view)
	defer hs.Close()

	code, body := viewGet(t, hs.URL+"/", "")
	if code != 200 || strings.Count(body, `<span class="phase p-Succeeded">Succeeded</span>`) != 2 {
		t.Fatalf("overview: %d\n%s", code, body)
	}
	code, body = viewGet(t, hs.URL+"/apps/ui-a", "")
	if code != 200 || strings.Count(body, `<span class="match">= predicted</span>`) != 3 || !strings.Contains(body, "Wave 3") {
		t.Fatalf("app page: %d, want 3 waves, each Deployment observed as predicted\n%s", code, body)
	}

	// A stream open on ui-a sees the next rollout of ui-a.
	req, _ := http.NewRequestWithContext(ctx, "GET", hs.URL+"/events?app=ui-a", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") {
				events <- sc.Text()
			}
		}
		close(events)
	}()
	<-events // hello
	if _, err := repo.Commit("main", "v2", twoViewApps("v2", "v2", true)); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := cli("run", "--once", "--config", cfgPath); code != exitError {
		t.Fatalf("run --once with ui-b stuck: exit %d, want %d", code, exitError)
	}
	// Each wave's status commit is an event; the last says Succeeded.
	var seen []string
	for deadline := time.After(30 * time.Second); len(seen) == 0 || !strings.Contains(seen[len(seen)-1], `"phase":"Succeeded"`); {
		select {
		case e := <-events:
			if !strings.Contains(e, `"app":"ui-a"`) {
				t.Errorf("a stream of ?app=ui-a got %s", e)
			}
			seen = append(seen, e)
		case <-deadline:
			t.Fatalf("ui-a's events within 30s of its rollout: %v, want the last Succeeded", seen)
		}
	}
	waitPage := func(path string, ok func(string) bool) (int, string) {
		t.Helper()
		var code int
		var body string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if code, body = viewGet(t, hs.URL+path, ""); code == 200 && ok(body) {
				break
			}
		}
		return code, body
	}
	code, body = waitPage("/apps/ui-b", func(b string) bool { return strings.Contains(b, "p-Failed") })
	if code != 200 || !regexp.MustCompile(`waits on its health gate: b: .*Deployment/ui-b/b`).MatchString(body) || !strings.Contains(body, "waits on an earlier wave: wave 2 failed") {
		t.Errorf("ui-b with a failing health gate: %d\n%s", code, body)
	}
	code, body = waitPage("/apps/ui-a/history", func(b string) bool { return strings.Count(b, `<section class="rollout">`) == 2 })
	if code != 200 || strings.Count(body, `<section class="rollout">`) != 2 || !strings.Contains(body, "1 → ") {
		t.Errorf("ui-a history: %d, want 2 rollouts, roles from revision 1 to 2\n%s", code, body)
	}
}

// TestWebViewKubernetesAuth serves the view with ui.auth kubernetes: two
// ServiceAccounts, each with view in one app's namespace, see one app
// each; a token the API server does not authenticate, and none, get
// 401.
func TestWebViewKubernetesAuth(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "view-auth")
	if _, err := repo.Commit("main", "v1", map[string]string{"apps/x/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "apps/x/kustomization.yaml": "resources: [cm.yaml]\n"}); err != nil {
		t.Fatal(err)
	}
	cfgPath := writeConfig(t, repo.URL(), "- {name: va, path: apps/x, namespace: view-auth-a}\n- {name: vb, path: apps/x, namespace: view-auth-b}\n")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.UI.Auth = config.UIAuthKubernetes
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tokens := map[string]string{}
	for _, ns := range []string{"view-auth-a", "view-auth-b"} {
		tokens[ns] = viewer(ctx, t, cs, ns)
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	view, _, err := newView(ctx, cfg, viewOptions{Addr: "127.0.0.1:0", Refresh: time.Minute}, log)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(view)
	defer hs.Close()
	for ns, want := range map[string]string{"view-auth-a": "va", "view-auth-b": "vb"} {
		code, body := viewGet(t, hs.URL+"/api/v1/apps", tokens[ns])
		var out struct {
			Apps []struct {
				App string `json:"app"`
			} `json:"apps"`
		}
		if code != 200 || json.Unmarshal([]byte(body), &out) != nil || len(out.Apps) != 1 || out.Apps[0].App != want {
			t.Errorf("the viewer of %s: %d %s, want only app %s", ns, code, body, want)
		}
		other := map[string]string{"va": "vb", "vb": "va"}[want]
		if code, _ := viewGet(t, hs.URL+"/apps/"+other, tokens[ns]); code != 404 {
			t.Errorf("the viewer of %s opens app %s: %d, want 404", ns, other, code)
		}
	}
	if code, _ := viewGet(t, hs.URL+"/", "not-a-token"); code != 401 {
		t.Errorf("a token that fails TokenReview: %d, want 401", code)
	}
	if code, body := viewGet(t, hs.URL+"/", ""); code != 401 || !strings.Contains(body, "Bearer token") {
		t.Errorf("no token: %d, want 401 and the sign-in form", code)
	}

	// In a browser: the token pasted on the sign-in page decides which
	// app the overview lists; one the API server does not authenticate
	// is sent back to sign in.
	tab, _ := browser(t)
	// signIn pastes token on the sign-in page and waits for what the
	// page it leads to shows at sel.
	signIn := func(token, sel string) string {
		t.Helper()
		if err := chromedp.Do(tab, chromedp.Navigate(hs.URL+"/login"), chromedp.SetValue("#token", token), chromedp.Click("#login button"),
			chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
			t.Fatalf("after signing in, %s: %v", sel, err)
		}
		return pageText(t, tab, "main")
	}
	for ns, want := range map[string]string{"view-auth-a": "va", "view-auth-b": "vb"} {
		signIn(tokens[ns], "#app-"+want)
		if rows := evaluate[[]string](t, tab, `Array.from(document.querySelectorAll("table.apps tbody tr")).map(r => r.id)`); len(rows) != 1 {
			t.Errorf("the viewer of %s sees %v, want app-%s alone", ns, rows, want)
		}
	}
	if text := signIn("not-a-token", "p.error"); !strings.Contains(text, "not authenticated") || !strings.Contains(text, "Bearer token") {
		t.Errorf("a token that fails TokenReview, in the browser: %q", text)
	}
}

// viewer makes namespace ns and a ServiceAccount in it bound to the view
// ClusterRole there, and returns a token of it.
func viewer(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) string {
	t.Helper()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "viewer"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "viewer"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "viewer", Namespace: ns}}}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "viewer", &authnv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// TestUICommand runs roleout ui as a process: it serves the overview on
// a loopback address, and refuses any other address under ui.auth none.
func TestUICommand(t *testing.T) {
	t.Parallel()
	_, repo, _ := newSourceRepo(t)
	config := writeConfig(t, repo.URL(), "- {name: web, path: apps/web, namespace: ui-cmd}\n")
	if code, _, errOut := cli("ui", "--config", config, "--listen", "0.0.0.0:0"); code != exitError || !strings.Contains(errOut, "not a loopback address") {
		t.Errorf("roleout ui on 0.0.0.0 with ui.auth none: exit %d %s", code, errOut)
	}
	cmd := exec.Command(roleoutBinary(t), "ui", "--config", config, "--listen", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("roleout ui printed %q (%v)", line, err)
	}
	code, body := viewGet(t, m[1], "")
	if code != 200 || !strings.Contains(body, `href="/apps/web"`) || !strings.Contains(body, "NotReconciled") {
		t.Errorf("GET %s: %d\n%s", m[1], code, body)
	}
}
