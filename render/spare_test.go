package render

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/roleout/roleout/internal/hostile"
)

// warmRenderer returns a renderer that keeps warm spares, closed when
// the test ends, and the messages it logged at debug level.
func warmRenderer(t *testing.T, idle time.Duration) (*Renderer, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var logged []string
	r := &Renderer{Spare: idle, Debugf: func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	}}
	t.Cleanup(r.Close)
	return r, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), logged...)
	}
}

// spareProc returns r's warm spare of a render with opts, once it is
// ready, or fails the test.
func spareProc(t *testing.T, r *Renderer, opts Options) *childProc {
	t.Helper()
	if !r.SpareReady(opts, time.Minute) {
		t.Fatal("no warm spare ready a minute after a render")
	}
	kind, err := r.kind(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spares[kind].p
}

// alive says process pid exists (and is not a zombie).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// TestWarmSpareEquivalent: every overlay of the equivalence corpus (which
// TestEquivalentToKubectlKustomize holds to kubectl kustomize through a
// cold sandbox process) renders the same objects, or the same error, in
// a warm spare; one that sets its own OpenAPI schema is refused by the
// warm process, said at debug level, and rendered cold.
func TestWarmSpareEquivalent(t *testing.T) {
	t.Parallel()
	r, logged := warmRenderer(t, time.Minute)
	cases := equivalenceCases(t)
	if _, err := r.Build(context.Background(), Source{Root: cases[0].root}, cases[0].overlay, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	sawCustom := false
	for _, c := range cases {
		cold, coldErr := (&Renderer{}).Build(context.Background(), Source{Root: c.root}, c.overlay, DefaultOptions())
		spareProc(t, r, DefaultOptions())
		warm, warmErr := r.Build(context.Background(), Source{Root: c.root}, c.overlay, DefaultOptions())
		if fmt.Sprint(coldErr) != fmt.Sprint(warmErr) {
			t.Fatalf("%s: cold %v, warm %v", c.name, coldErr, warmErr)
		}
		if coldErr != nil {
			continue
		}
		if warm.Warm == c.sandboxOnly {
			t.Errorf("%s: Warm %v; want a spare to serve it unless it sets its own schema (%v)", c.name, warm.Warm, c.sandboxOnly)
		}
		sawCustom = sawCustom || c.sandboxOnly
		if len(cold.Objects) != len(warm.Objects) {
			t.Fatalf("%s: %d objects cold, %d warm", c.name, len(cold.Objects), len(warm.Objects))
		}
		for i := range cold.Objects {
			if !reflect.DeepEqual(cold.Objects[i].Object, warm.Objects[i].Object) {
				a, _ := json.Marshal(cold.Objects[i].Object)
				b, _ := json.Marshal(warm.Objects[i].Object)
				t.Fatalf("%s: object %d differs:\ncold: %s\nwarm: %s", c.name, i, a, b)
			}
		}
	}
	if !sawCustom {
		t.Fatal("no layout of the corpus sets its own OpenAPI schema")
	}
	got := strings.Join(logged(), "\n")
	for _, overlay := range []string{"customschema", "customschemabase/overlay"} {
		if !strings.Contains(got, "kustomize build "+overlay+": a kustomization of it sets its own OpenAPI schema") {
			t.Errorf("nothing said at debug level of %s moved off the spare: %q", overlay, got)
		}
	}
}

// TestWarmSpareServesOneRender: a spare serves one render and exits; the
// next render, of another trust domain, gets another process; a spare
// serves only renders of its own kind (network namespace); Close kills
// the spare left.
func TestWarmSpareServesOneRender(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	plainOverlay(t, root, "a")
	plainOverlay(t, root, "b")
	r, _ := warmRenderer(t, time.Minute)
	opts := DefaultOptions()
	if res, err := r.Build(context.Background(), Source{Root: root, Domain: "trusted"}, "a", opts); err != nil || res.Warm {
		t.Fatalf("first render: warm %v, %v (nothing could be warm yet)", res.Warm, err)
	}
	first := spareProc(t, r, opts)
	res, err := r.Build(context.Background(), Source{Root: root, Domain: "trusted"}, "a", opts)
	if err != nil || !res.Warm || len(res.Objects) != 1 {
		t.Fatalf("second render: warm %v, %d objects, %v", res.Warm, len(res.Objects), err)
	}
	if alive(first.cmd.Process.Pid) {
		t.Errorf("the spare that served a render (pid %d) still runs", first.cmd.Process.Pid)
	}
	if _, err := os.Stat(first.tmp); !os.IsNotExist(err) {
		t.Errorf("the served spare's directory is left: %v", err)
	}
	second := spareProc(t, r, opts)
	if second == first {
		t.Fatal("the same spare twice")
	}
	if res, err := r.Build(context.Background(), Source{Root: root, Domain: "untrusted"}, "b", opts); err != nil || !res.Warm {
		t.Fatalf("render of another domain: warm %v, %v", res.Warm, err)
	}
	if alive(second.cmd.Process.Pid) {
		t.Errorf("the spare that served the other domain (pid %d) still runs", second.cmd.Process.Pid)
	}

	online := opts
	online.RemoteHosts = []string{"example.com"}
	spareProc(t, r, opts)
	if res, err := r.Build(context.Background(), Source{Root: root}, "a", online); err != nil || res.Warm {
		t.Fatalf("a render that may reach a host, in an offline spare: warm %v, %v", res.Warm, err)
	}
	left := []*childProc{spareProc(t, r, opts), spareProc(t, r, online)}
	r.Close()
	for _, p := range left {
		if alive(p.cmd.Process.Pid) {
			t.Errorf("a spare left (pid %d) runs after Close", p.cmd.Process.Pid)
		}
		if _, err := os.Stat(p.tmp); !os.IsNotExist(err) {
			t.Errorf("a spare's directory is left after Close: %v", err)
		}
	}
	if res, err := r.Build(context.Background(), Source{Root: root}, "a", opts); err != nil || res.Warm {
		t.Fatalf("a render after Close: warm %v, %v", res.Warm, err)
	}
	r.mu.Lock()
	n := len(r.spares)
	r.mu.Unlock()
	if n != 0 {
		t.Errorf("%d spares started after Close", n)
	}
}

// TestWarmSpareLimits: a render handed to a warm spare is held to its
// limits as in a cold process: an alias bomb is killed at the memory (or
// time) limit, a program that never ends at the time limit.
func TestWarmSpareLimits(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"bomb/kustomization.yaml": "resources: [bomb.yaml]\n",
		"bomb/bomb.yaml":          hostile.AliasBomb("bomb"),
	})
	plainOverlay(t, root, "fast")
	stuckGenerator(t, root, "stuck")
	r, _ := warmRenderer(t, time.Minute)
	if _, err := r.Build(context.Background(), Source{Root: root}, "fast", DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Limits.MaxMemory = 512 << 20
	opts.Limits.Timeout = 2 * time.Minute
	sp := spareProc(t, r, opts)
	_, err := r.Build(context.Background(), Source{Root: root}, "bomb", opts)
	if err == nil || !strings.Contains(err.Error(), "render used more than 512 MiB of memory (limit maxMemory)") && !strings.Contains(err.Error(), "limit timeout") {
		t.Fatalf("the alias bomb in a warm spare: %v", err)
	}
	if alive(sp.cmd.Process.Pid) {
		t.Fatal("the alias bomb did not go to the warm spare")
	}
	opts = execOptions()
	opts.Limits.Timeout = 300 * time.Millisecond
	sp = spareProc(t, r, opts)
	if _, err := r.Build(context.Background(), Source{Root: root}, "stuck", opts); err == nil || !strings.Contains(err.Error(), "limit timeout") {
		t.Fatalf("a program that never ends, in a warm spare: %v", err)
	}
	if alive(sp.cmd.Process.Pid) {
		t.Fatal("the stuck render did not go to the warm spare, or it outlived its time limit")
	}
}

// TestWarmSpareRetires: a spare nobody takes exits after Renderer.Spare;
// one that died waiting is not handed a render.
func TestWarmSpareRetires(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	plainOverlay(t, root, "a")
	r, _ := warmRenderer(t, time.Hour)
	if _, err := r.Build(context.Background(), Source{Root: root}, "a", DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	dead := spareProc(t, r, DefaultOptions())
	_ = syscall.Kill(dead.cmd.Process.Pid, syscall.SIGKILL)
	<-dead.exited
	res, err := r.Build(context.Background(), Source{Root: root}, "a", DefaultOptions())
	if err != nil || res.Warm {
		t.Fatalf("render after the spare died: warm %v, %v", res.Warm, err)
	}

	idle, _ := warmRenderer(t, 2*time.Second)
	if _, err := idle.Build(context.Background(), Source{Root: root}, "a", DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	kind, _ := idle.kind(DefaultOptions())
	var waiting *childProc
	for deadline := time.Now().Add(30 * time.Second); waiting == nil; time.Sleep(5 * time.Millisecond) {
		idle.mu.Lock()
		if s := idle.spares[kind]; s != nil {
			waiting = s.p
		}
		idle.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("no spare 30 s after a render")
		}
	}
	for deadline := time.Now().Add(30 * time.Second); alive(waiting.cmd.Process.Pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the idle spare still runs 30 s after its 2 s")
		}
	}
	<-waiting.exited
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(waiting.tmp); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the retired spare's directory %s is left", waiting.tmp)
		}
	}
	idle.mu.Lock()
	left := idle.spares[kind]
	idle.mu.Unlock()
	if left != nil {
		t.Error("a retired spare is still offered")
	}
	entries, _ := filepath.Glob(filepath.Join(os.TempDir(), "roleout-render-*"))
	for _, e := range entries {
		if e == dead.tmp {
			t.Errorf("the dead spare's directory %s is left", e)
		}
	}
}

// TestFallbackSaidAtDebugLevel: a layout whose name reference
// configuration writes a field that could change an id takes kustomize's
// own path (third_party/kustomize-api/ROLEOUT.md), and the renderer says
// so at debug level; one that does not, says nothing.
func TestFallbackSaidAtDebugLevel(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("testdata/equivalence")
	if err != nil {
		t.Fatal(err)
	}
	r, logged := warmRenderer(t, 0)
	if _, err := r.Build(context.Background(), Source{Root: root}, "generators/overlay", DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if got := logged(); len(got) != 0 {
		t.Errorf("a layout the fast path handles: %q", got)
	}
	if _, err := r.Build(context.Background(), Source{Root: root}, "customconfig", DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(logged(), "\n")
	if !strings.Contains(got, "kustomize build customconfig: the name reference pass writes the name field metadata/annotations/config.kubernetes.io") ||
		!strings.Contains(got, "it took kustomize's own, slower path (same output)") {
		t.Errorf("the custom name reference configuration: %q", got)
	}
}

// TestWarmSpareConcurrent: renders of one kind at once, with spares
// taken and started beside them, all succeed; Close then leaves no
// spare, and none starts after it.
func TestWarmSpareConcurrent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	plainOverlay(t, root, "a")
	r, _ := warmRenderer(t, time.Minute)
	r.Processes = 4
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for range 4 {
		wg.Go(func() {
			for range 3 {
				if res, err := r.Build(context.Background(), Source{Root: root}, "a", DefaultOptions()); err != nil || len(res.Objects) != 1 {
					errs <- fmt.Errorf("%d objects, %v", len(res.Objects), err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r.Close()
	r.mu.Lock()
	n, starting := len(r.spares), len(r.starting)
	r.mu.Unlock()
	if n != 0 || starting != 0 {
		t.Errorf("after Close: %d spares, %d starting", n, starting)
	}
}

// TestWarmSpareStopsAtCustomSchema: a warm spare stops a render as soon
// as a kustomization gives a schema of its own, before its generators
// run: a program the render runs runs once, in the cold process.
func TestWarmSpareStopsAtCustomSchema(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "repo")
	ran := filepath.Join(t.TempDir(), "ran")
	execGenerator(t, root, "gen", "g", "echo run >> "+ran)
	writeFile(t, filepath.Join(root, "gen", "kustomization.yaml"), "openapi: {path: schema.json}\ngenerators: [gen.yaml]\n")
	writeFile(t, filepath.Join(root, "gen", "schema.json"), `{"definitions": {}}`)
	plainOverlay(t, root, "plain")
	r, logged := warmRenderer(t, time.Minute)
	if _, err := r.Build(context.Background(), Source{Root: root}, "plain", execOptions()); err != nil {
		t.Fatal(err)
	}
	spareProc(t, r, execOptions())
	res, err := r.Build(context.Background(), Source{Root: root}, "gen", execOptions())
	if err != nil || res.Warm || len(res.Objects) != 1 {
		t.Fatalf("warm %v, %d objects, %v", res.Warm, len(res.Objects), err)
	}
	data, err := os.ReadFile(ran)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), "run\n"); got != 1 {
		t.Errorf("the generator ran %d times, want once", got)
	}
	if !strings.Contains(strings.Join(logged(), "\n"), "kustomize build gen: a kustomization of it sets its own OpenAPI schema") {
		t.Errorf("not said at debug level: %q", logged())
	}
}
