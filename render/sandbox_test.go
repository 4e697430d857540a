package render

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/roleout/roleout/internal/hostile"
)

// countingServer is a loopback HTTP server that counts the requests it
// gets and answers each with a small file.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if strings.HasSuffix(r.URL.Path, "/big") {
			_, _ = w.Write([]byte(strings.Repeat("x", 4096)))
			return
		}
		_, _ = w.Write([]byte("secret-from-the-network"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestSandboxFetchGate: kustomize's own HTTP fetches, in every field that
// takes a path, reach no host the app does not allow: the server records
// 0 requests and the error names the URL and the setting. An allowed
// host is fetched, bounded in bytes, and such a render is not cached.
func TestSandboxFetchGate(t *testing.T) {
	t.Parallel()
	srv, requests := countingServer(t)
	u := srv.URL + "/creds"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: base}\n"
	cases := map[string]string{
		"configMapGenerator files": "configMapGenerator:\n- name: c\n  files: [creds=" + u + "]\n",
		"configMapGenerator envs":  "configMapGenerator:\n- name: c\n  envs: [" + u + "]\n",
		"secretGenerator files":    "secretGenerator:\n- name: s\n  files: [" + u + "]\n",
		"patches path":             "resources: [cm.yaml]\npatches:\n- path: " + u + "\n",
		"replacements path":        "resources: [cm.yaml]\nreplacements:\n- path: " + u + "\n",
		"openapi path":             "resources: [cm.yaml]\nopenapi:\n  path: " + u + "\n",
		"crds":                     "resources: [cm.yaml]\ncrds: [" + u + "]\n",
		"configurations":           "resources: [cm.yaml]\nconfigurations: [" + u + "]\n",
		"transformers":             "resources: [cm.yaml]\ntransformers: [" + u + "]\n",
		"generators":               "generators: [" + u + "]\n",
		"validators":               "resources: [cm.yaml]\nvalidators: [" + u + "]\n",
	}
	r := &Renderer{}
	for name, kust := range cases {
		t.Run(name, func(t *testing.T) {
			root := writeTree(t, map[string]string{"o/kustomization.yaml": kust, "o/cm.yaml": cm})
			_, err := r.Build(context.Background(), Source{Root: root}, "o", DefaultOptions())
			if err == nil {
				t.Fatal("no error: the fetch was not refused")
			}
			host, _, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
			for _, want := range []string{"kustomize build o:", host} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("the server got %d requests from renders with remoteHosts []", n)
	}

	t.Run("allowed host", func(t *testing.T) {
		root := writeTree(t, map[string]string{"o/kustomization.yaml": cases["configMapGenerator files"]})
		opts := DefaultOptions()
		opts.RemoteHosts = []string{"127.0.0.1"}
		res, err := r.Build(context.Background(), Source{Root: root, Index: indexTree(t, root)}, "o", opts)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := unstructuredString(res, "data", "creds"); got != "secret-from-the-network" {
			t.Errorf("data.creds = %q", got)
		}
		if res.Inputs != nil {
			t.Errorf("a render that fetched is cached: inputs %v", res.Inputs)
		}
		if requests.Load() != 1 {
			t.Errorf("requests = %d, want 1", requests.Load())
		}
	})
	t.Run("allowed host, too large", func(t *testing.T) {
		root := writeTree(t, map[string]string{"o/kustomization.yaml": "configMapGenerator:\n- name: c\n  files: [big=" + srv.URL + "/big]\n"})
		opts := DefaultOptions()
		opts.RemoteHosts = []string{"127.0.0.1"}
		opts.Limits.MaxFileBytes = 1000
		_, err := r.Build(context.Background(), Source{Root: root}, "o", opts)
		if err == nil || !strings.Contains(err.Error(), "limit maxFileBytes") {
			t.Fatalf("error %v, want the per-file byte limit", err)
		}
	})
}

func unstructuredString(res Result, fields ...string) (string, bool, error) {
	if len(res.Objects) != 1 {
		return "", false, fmt.Errorf("%d objects", len(res.Objects))
	}
	v, ok := res.Objects[0].Object[fields[0]].(map[string]any)
	if !ok {
		return "", false, nil
	}
	s, ok := v[fields[1]].(string)
	return s, ok, nil
}

// TestSandboxMemoryLimit: an alias bomb is killed at the memory limit
// (or, on a slow machine, the time limit) with an error naming it, and
// this process's heap does not grow with it. The next render runs.
func TestSandboxMemoryLimit(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"bomb/kustomization.yaml": "resources: [bomb.yaml]\n",
		"bomb/bomb.yaml":          hostile.AliasBomb("bomb"),
	})
	plainOverlay(t, root, "fast")
	r := &Renderer{}
	opts := DefaultOptions()
	opts.Limits.MaxMemory = 512 << 20
	opts.Limits.Timeout = 2 * time.Minute
	_, err := r.Build(context.Background(), Source{Root: root}, "bomb", opts)
	if err == nil {
		t.Fatal("the alias bomb rendered")
	}
	if !strings.Contains(err.Error(), "kustomize build bomb: render used more than 512 MiB of memory (limit maxMemory)") &&
		!strings.Contains(err.Error(), "limit timeout") {
		t.Fatalf("error %q names neither the memory nor the time limit", err)
	}
	if res, err := r.Build(context.Background(), Source{Root: root}, "fast", DefaultOptions()); err != nil || len(res.Objects) != 1 {
		t.Fatalf("the render after a killed one: %v, %v", res.Objects, err)
	}
}

// TestSandboxParallel: a render that hangs does not hold up another
// app's: no lock is shared, and the hanging one is killed, with the
// program it ran, at its time limit.
func TestSandboxParallel(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "repo")
	started, _ := stuckGenerator(t, root, "slow")
	plainOverlay(t, root, "fast")
	r := &Renderer{Processes: 2}
	opts := execOptions()
	opts.Limits.Timeout = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := make(chan error, 1)
	go func() {
		_, err := r.Build(ctx, Source{Root: root}, "slow", opts)
		slow <- err
	}()
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case err := <-slow:
			t.Fatalf("the slow render ended before its generator started: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if res, err := r.Build(context.Background(), Source{Root: root}, "fast", DefaultOptions()); err != nil || len(res.Objects) != 1 {
		t.Fatalf("a render beside a hanging one: %v, %v", res.Objects, err)
	}
	select {
	case err := <-slow:
		t.Fatalf("the hanging render ended on its own: %v", err)
	default:
	}
	cancel()
	if err := <-slow; err == nil || !strings.Contains(err.Error(), "render stopped: context canceled") {
		t.Fatalf("the cancelled render: %v", err)
	}
}

// TestSandboxEnvironment: a program a render runs sees none of the
// agent's environment (tokens, KUBECONFIG).
func TestSandboxEnvironment(t *testing.T) {
	t.Setenv("ROLEOUT_TEST_TOKEN", "s3cret")
	t.Setenv("KUBECONFIG", "/etc/agent-kubeconfig")
	root := filepath.Join(t.TempDir(), "repo")
	execGenerator(t, root, "env", "seen", `echo "$ROLEOUT_TEST_TOKEN$KUBECONFIG" >&2; [ -z "$ROLEOUT_TEST_TOKEN$KUBECONFIG" ] || exit 7`)
	res, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "env", execOptions())
	if err != nil {
		t.Fatalf("the generator saw the agent's environment: %v", err)
	}
	if len(res.Objects) != 1 || res.Objects[0].GetName() != "seen" {
		t.Fatalf("objects %v", res.Objects)
	}
}

// TestSandboxRelativeRoot: a root relative to this process's working
// directory renders, though the sandbox runs in a directory of its own.
func TestSandboxRelativeRoot(t *testing.T) {
	dir := t.TempDir()
	plainOverlay(t, filepath.Join(dir, "repo"), "o")
	t.Chdir(dir)
	res, err := (&Renderer{}).Build(context.Background(), Source{Root: "repo"}, "o", DefaultOptions())
	if err != nil || len(res.Objects) != 1 {
		t.Fatalf("render of a relative root: %v, %v", res.Objects, err)
	}
}

// TestSandboxNetworkNamespace: a program a render runs (an exec function
// here) reaches no network when the app allows no host, not even
// loopback: the server on this machine gets no request. With an allowed
// host it does.
func TestSandboxNetworkNamespace(t *testing.T) {
	t.Parallel()
	srv, requests := countingServer(t)
	root := filepath.Join(t.TempDir(), "repo")
	addr := strings.TrimPrefix(srv.URL, "http://")
	host, port, _ := strings.Cut(addr, ":")
	// bash's /dev/tcp opens a connection without any HTTP client; the
	// generator succeeds either way and says what it saw.
	execGenerator(t, root, "net", "probe", `if bash -c 'exec 3<>/dev/tcp/`+host+`/`+port+` && printf "GET / HTTP/1.0\r\n\r\n" >&3 && cat <&3 >/dev/null' 2>/dev/null; then echo reached >&2; fi`)
	if _, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "net", execOptions()); err != nil {
		t.Fatal(err)
	}
	if !NetworkIsolated() {
		t.Skip("the kernel allows no network namespace here (no root, no unprivileged user namespaces): renders rely on the HTTP gate alone")
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("a program run by a render with no allowed host reached the network: %d requests", n)
	}
	opts := execOptions()
	opts.RemoteHosts = []string{host}
	if _, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "net", opts); err != nil {
		t.Fatal(err)
	}
	if n := requests.Load(); n != 1 {
		t.Fatalf("with host %s allowed the program made %d requests, want 1", host, n)
	}
}

// TestIsolationFailsClosed: where the kernel gives a render no network
// namespace (the probe's answer, set here as such a kernel gives it), a
// render that requires isolation is refused before anything runs, and
// one that does not runs behind the fetch gate. Serial: the probe's
// answer is the process's.
func TestIsolationFailsClosed(t *testing.T) {
	NetworkIsolation("") // probe first, so that the answer set below is not overwritten
	saved := isolationProbe.err
	isolationProbe.err = errors.New("operation not permitted")
	defer func() { isolationProbe.err = saved }()
	if NetworkIsolated() {
		t.Fatal("NetworkIsolated with a refused probe")
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "app", "kustomization.yaml"), "resources: [cm.yaml]\n")
	writeFile(t, filepath.Join(root, "app", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
	opts := DefaultOptions()
	opts.RequireNetworkIsolation = true
	if _, err := (&Renderer{}).Build(context.Background(), Source{Root: root, Domain: "isolation-required"}, "app", opts); !errors.Is(err, ErrNoIsolation) {
		t.Errorf("a render that requires isolation, without it: %v; want ErrNoIsolation", err)
	}
	opts.RequireNetworkIsolation = false
	if res, err := (&Renderer{}).Build(context.Background(), Source{Root: root, Domain: "isolation-optional"}, "app", opts); err != nil || len(res.Objects) != 1 {
		t.Errorf("a render that does not require isolation: %v", err)
	}
}

// TestRenderedProgramsDieWithTheRender: an exec function that starts a
// program in a session of its own (setsid, out of the render's process
// group) leaves nothing running once the render returns, and cannot
// write the render's result: the result descriptor is not inherited.
func TestRenderedProgramsDieWithTheRender(t *testing.T) {
	t.Parallel()
	if !NetworkIsolated() {
		t.Skip("the kernel allows no namespaces here: an escaped session is only killed with the process group")
	}
	root := filepath.Join(t.TempDir(), "repo")
	marker := fmt.Sprintf("%d", 40000+os.Getpid()%20000) // a sleep no other test starts
	execGenerator(t, root, "escape", "real",
		"setsid sleep "+marker+" </dev/null >/dev/null 2>&1 &\n"+
			`printf '{"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"forged"}}]}' >&3 2>/dev/null || true`)
	res, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "escape", execOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Objects) != 1 || res.Objects[0].GetName() != "real" {
		t.Errorf("objects %v, want only the generator's ConfigMap real (a program wrote the result)", res.Objects)
	}
	running := func() bool {
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), "sleep\x00"+marker) {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(5 * time.Second); running(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("sleep %s, started with setsid by the render, outlived it", marker)
		}
	}
}

// TestGroupResidentBytes: the memory of a process group counts its
// members, not only the process the agent started.
func TestGroupResidentBytes(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", "sleep 30 & sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()
	var group, own int64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if group, own = groupResidentBytes(cmd.Process.Pid), residentBytes(cmd.Process.Pid); own > 0 && group >= 3*own/2 {
			return
		}
	}
	t.Errorf("group of sh and two sleeps: %d bytes resident, sh alone %d; want the sleeps counted", group, own)
}
