package testforge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roleout/roleout/internal/testcluster"
)

// Gitea is a Gitea server started for a test.
type Gitea struct {
	// URL is its base URL (http://127.0.0.1:PORT).
	URL string
	// User and Password are the admin user's; Token its API token.
	User, Password, Token string
	dir                   string
}

// StartGitea builds Gitea when bin/gitea is missing, starts it in a
// directory of its own and stops it when the test ends.
func StartGitea(t testing.TB) *Gitea {
	t.Helper()
	root, err := testcluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command(filepath.Join(root, "hack", "gitea.sh"))
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build Gitea (hack/gitea.sh): %v\n%s", err, out)
	}
	bin := filepath.Join(root, "bin", "gitea")
	g := &Gitea{User: "roleout", Password: "Roleout-test-1", dir: t.TempDir()}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	g.URL = fmt.Sprintf("http://127.0.0.1:%d", port)
	ini := filepath.Join(g.dir, "app.ini")
	if err := os.WriteFile(ini, []byte(fmt.Sprintf(appINI, g.dir, port, g.URL, filepath.Join(root, "bin", "gitea-assets"))), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--config", ini}, args...)...)
		cmd.Dir = g.dir
		cmd.Env = append(os.Environ(), "GITEA_WORK_DIR="+g.dir, "HOME="+g.dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("gitea %s: %v\n%s", strings.Join(args, " "), err, exitText(err))
		}
		return strings.TrimSpace(string(out))
	}
	run("migrate")
	run("admin", "user", "create", "--username", g.User, "--password", g.Password, "--email", "roleout@example.com", "--admin", "--must-change-password=false")
	g.Token = lastLine(run("admin", "user", "generate-access-token", "--username", g.User, "--token-name", "tests", "--scopes", "all", "--raw"))
	log, err := os.Create(filepath.Join(g.dir, "gitea.log"))
	if err != nil {
		t.Fatal(err)
	}
	web := exec.Command(bin, "--config", ini, "web")
	web.Dir, web.Stdout, web.Stderr = g.dir, log, log
	web.Env = append(os.Environ(), "GITEA_WORK_DIR="+g.dir, "HOME="+g.dir)
	if err := web.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = web.Process.Kill()
		_ = web.Wait()
		_ = log.Close()
		if t.Failed() {
			data, _ := os.ReadFile(log.Name())
			t.Logf("gitea's log:\n%s", tail(string(data), 4000))
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		var me map[string]any
		err := g.API("GET", "/user", nil, &me)
		if err == nil {
			break
		}
		if strings.Contains(err.Error(), ": 401 ") {
			// Once in a while on a loaded machine Gitea answers the token
			// its CLI made with 401 "token is required": then one is made
			// through the API, with the admin's password.
			token, terr := g.passwordToken()
			if terr == nil {
				g.Token = token
				continue
			}
			err = fmt.Errorf("%w (the CLI's token has %d characters); a token through the API: %v", err, len(g.Token), terr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("gitea did not answer within a minute: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return g
}

// passwordToken makes an API token for the admin user through the API,
// signed in with the user's password.
func (g *Gitea) passwordToken() (string, error) {
	var tok struct {
		SHA1 string `json:"sha1"`
	}
	in := map[string]any{"name": fmt.Sprintf("tests-%d", time.Now().UnixNano()), "scopes": []string{"all"}}
	err := g.call("POST", "/users/"+g.User+"/tokens", func(r *http.Request) { r.SetBasicAuth(g.User, g.Password) }, in, &tok)
	if err == nil && tok.SHA1 == "" {
		err = fmt.Errorf("POST /users/%s/tokens: no token in the answer", g.User)
	}
	return tok.SHA1, err
}

// appINI is Gitea's configuration: %[1]s its directory, %[2]d its port,
// %[3]s its URL, %[4]s where its locale files and templates are.
const appINI = `APP_NAME = roleout-test
RUN_USER = root
RUN_MODE = prod
I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true
WORK_PATH = %[1]s

[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = %[2]d
ROOT_URL = %[3]s/
DISABLE_SSH = true
OFFLINE_MODE = true
LFS_START_SERVER = false
STATIC_ROOT_PATH = %[4]s
APP_DATA_PATH = %[1]s/data

[database]
DB_TYPE = sqlite3
PATH = %[1]s/data/gitea.db

[repository]
ROOT = %[1]s/repos

[security]
INSTALL_LOCK = true

[service]
DISABLE_REGISTRATION = true

[log]
MODE = console
LEVEL = warn

[webhook]
ALLOWED_HOST_LIST = loopback
DELIVER_TIMEOUT = 10

[cron]
ENABLED = false
`

// API calls Gitea's API as the admin user: method path (under /api/v1)
// with in as JSON (nil: no body), the answer decoded into out (nil:
// dropped). An answer of 300 or more is an error with its body.
func (g *Gitea) API(method, path string, in, out any) error {
	return g.call(method, path, func(r *http.Request) { r.Header.Set("Authorization", "token "+g.Token) }, in, out)
}

// call is API, signed in by auth.
func (g *Gitea) call(method, path string, auth func(*http.Request), in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, g.URL+"/api/v1"+path, body)
	if err != nil {
		return err
	}
	auth(req)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if out != nil && len(data) > 0 {
		return json.Unmarshal(data, out)
	}
	return nil
}

// CloneURL is repository name's clone URL with the admin's credentials.
func (g *Gitea) CloneURL(name string) string {
	return strings.Replace(g.URL, "http://", "http://"+g.User+":"+g.Token+"@", 1) + "/" + g.User + "/" + name + ".git"
}

// Repo is a repository of the admin user, with a work tree of the
// test's to commit from.
type Repo struct {
	Name string
	g    *Gitea
	work string
}

// CreateRepo makes an empty repository name of the admin user whose
// default branch is main.
func (g *Gitea) CreateRepo(t testing.TB, name string) *Repo {
	t.Helper()
	if err := g.API("POST", "/user/repos", map[string]any{"name": name, "default_branch": "main"}, nil); err != nil {
		t.Fatal(err)
	}
	r := &Repo{Name: name, g: g, work: t.TempDir()}
	r.git(t, "init", "-q", "-b", "main")
	r.git(t, "remote", "add", "origin", g.CloneURL(name))
	return r
}

// Commit writes files (path → content) on branch (made from main when
// new), commits them with message msg and pushes; it returns the commit.
func (r *Repo) Commit(t testing.TB, branch, msg string, files map[string]string) string {
	t.Helper()
	if r.git(t, "ls-remote", "origin", "refs/heads/"+branch) != "" {
		r.git(t, "fetch", "-q", "origin", branch)
		r.git(t, "checkout", "-q", "-B", branch, "FETCH_HEAD")
	} else if r.git(t, "ls-remote", "origin", "refs/heads/main") != "" {
		r.git(t, "fetch", "-q", "origin", "main")
		r.git(t, "checkout", "-q", "-B", branch, "FETCH_HEAD")
	} else {
		r.git(t, "checkout", "-q", "-B", branch)
	}
	for p, data := range files {
		full := filepath.Join(r.work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.git(t, "add", "-A")
	r.git(t, "-c", "user.name=tester", "-c", "user.email=tester@example.com", "commit", "-q", "--allow-empty", "-m", msg)
	r.git(t, "push", "-q", "origin", "HEAD:refs/heads/"+branch)
	return r.git(t, "rev-parse", "HEAD")
}

func (r *Repo) git(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.work}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// OpenPullRequest opens a pull request of repo from branch head into
// main and returns its number. Gitea learns of a pushed branch a moment
// after the push: the call is tried again for a while.
func (g *Gitea) OpenPullRequest(t testing.TB, repo, head, title string) int {
	t.Helper()
	var pr struct {
		Number int `json:"number"`
	}
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if err = g.API("POST", "/repos/"+g.User+"/"+repo+"/pulls", map[string]any{"head": head, "base": "main", "title": title}, &pr); err == nil {
			return pr.Number
		}
	}
	t.Fatalf("open a pull request of %s: %v", head, err)
	return 0
}

// Merge merges pull request n of repo (a merge commit) and returns the
// merge commit.
func (g *Gitea) Merge(t testing.TB, repo string, n int) string {
	t.Helper()
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if err = g.API("POST", fmt.Sprintf("/repos/%s/%s/pulls/%d/merge", g.User, repo, n), map[string]any{"Do": "merge"}, nil); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("merge pull request %d: %v", n, err)
	}
	var pr struct {
		MergeCommit string `json:"merge_commit_sha"`
	}
	if err := g.API("GET", fmt.Sprintf("/repos/%s/%s/pulls/%d", g.User, repo, n), nil, &pr); err != nil {
		t.Fatal(err)
	}
	return pr.MergeCommit
}

// Status is a commit status as Gitea lists it.
type Status struct {
	ID          int64  `json:"id"`
	Context     string `json:"context"`
	State       string `json:"status"`
	Description string `json:"description"`
	TargetURL   string `json:"target_url"`
}

// Statuses lists the statuses of commit sha (the newest of a context has
// the highest ID).
func (g *Gitea) Statuses(t testing.TB, repo, sha string) []Status {
	t.Helper()
	var out []Status
	if err := g.API("GET", fmt.Sprintf("/repos/%s/%s/commits/%s/statuses?limit=50", g.User, repo, sha), nil, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Comment is a pull request's comment as Gitea lists it.
type Comment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
}

// Comments lists pull request n's comments, oldest first.
func (g *Gitea) Comments(t testing.TB, repo string, n int) []Comment {
	t.Helper()
	var out []Comment
	if err := g.API("GET", fmt.Sprintf("/repos/%s/%s/issues/%d/comments", g.User, repo, n), nil, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func exitText(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
