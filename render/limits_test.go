package render

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// execGenerator writes an exec KRM function that prints a ConfigMap
// named name, after running the shell commands pre, into a directory
// outside the repository, and an overlay at root/overlay whose generator
// runs it.
func execGenerator(t *testing.T, root, overlay, name, pre string) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "gen.sh")
	body := "#!/bin/sh\ncat >/dev/null\n" + pre + "\ncat <<EOF\napiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" +
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: " + name + "}, data: {by: exec}}\nEOF\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, overlay, "kustomization.yaml"), "generators: [gen.yaml]\n")
	writeFile(t, filepath.Join(root, overlay, "gen.yaml"), "apiVersion: example.com/v1\nkind: Gen\nmetadata:\n  name: g\n"+
		"  annotations:\n    config.kubernetes.io/function: |\n      exec: {path: "+script+"}\n")
}

// stuckGenerator writes an overlay whose exec generator touches started
// and then waits, without touching the render's files, until release is
// created. It returns both paths; the test's cleanup creates release.
func stuckGenerator(t *testing.T, root, overlay string) (started, release string) {
	t.Helper()
	dir := t.TempDir()
	started, release = filepath.Join(dir, "started"), filepath.Join(dir, "release")
	execGenerator(t, root, overlay, "late", "touch "+started+"\nwhile [ ! -e "+release+" ]; do sleep 0.01; done")
	t.Cleanup(func() { writeFile(t, release, "") })
	return started, release
}

// plainOverlay writes an overlay of one ConfigMap.
func plainOverlay(t *testing.T, root, overlay string) {
	t.Helper()
	writeFile(t, filepath.Join(root, overlay, "kustomization.yaml"), "resources: [cm.yaml]\n")
	writeFile(t, filepath.Join(root, overlay, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n")
}

func execOptions() Options {
	o := DefaultOptions()
	o.EnableExec = true
	return o
}

// TestBuildTimeLimit: a build busy outside the file system (here an exec
// function that never ends on its own) is still bounded by the time
// limit; once it ends, the next render runs.
func TestBuildTimeLimit(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "repo")
	_, release := stuckGenerator(t, root, "slow")
	plainOverlay(t, root, "fast")
	r := &Renderer{}
	opts := execOptions()
	opts.Limits.Timeout = 300 * time.Millisecond
	_, err := r.Build(context.Background(), Source{Root: root}, "slow", opts)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"kustomize build slow: render took longer than 300ms (limit timeout)", "render.timeout"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %q does not wrap context.DeadlineExceeded", err)
	}
	writeFile(t, release, "")
	res, err := r.Build(context.Background(), Source{Root: root}, "fast", DefaultOptions())
	if err != nil || len(res.Objects) != 1 {
		t.Fatalf("the render after an abandoned one: %v, %v", res.Objects, err)
	}
}

// TestBuildCancelled: a render stops when its context is done, both while
// kustomize runs and while it waits for another app's build.
func TestBuildCancelled(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	started, release := stuckGenerator(t, root, "slow")
	plainOverlay(t, root, "fast")
	r := &Renderer{}
	build := func(ctx context.Context, overlay string, opts Options) chan error {
		done := make(chan error, 1)
		go func() {
			_, err := r.Build(ctx, Source{Root: root}, overlay, opts)
			done <- err
		}()
		return done
	}
	slowCtx, cancelSlow := context.WithCancel(context.Background())
	defer cancelSlow()
	slow := build(slowCtx, "slow", execOptions())
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case err := <-slow:
			t.Fatalf("the build ended before its generator started: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}

	waitCtx, cancelWait := context.WithCancel(context.Background())
	waiting := build(waitCtx, "fast", DefaultOptions())
	cancelWait()
	cancelSlow()
	for name, done := range map[string]chan error{"fast (waiting)": waiting, "slow (running)": slow} {
		err := <-done
		overlay, _, _ := strings.Cut(name, " ")
		if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "kustomize build "+overlay+": render stopped: context canceled") {
			t.Errorf("%s: error %v, want a cancelled render of %s", name, err, overlay)
		}
	}
	writeFile(t, release, "")
	if res, err := r.Build(context.Background(), Source{Root: root}, "fast", DefaultOptions()); err != nil || len(res.Objects) != 1 {
		t.Fatalf("the render after a cancelled one: %v, %v", res.Objects, err)
	}
}
