package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// Limits bound one render.
type Limits struct {
	// MaxObjects is the most objects a render may produce.
	MaxObjects int
	// MaxBytes is the most bytes a render may read in all.
	MaxBytes int64
	// MaxFileBytes is the largest file a render may read.
	MaxFileBytes int64
	// Timeout bounds a render's wall-clock time, from when its sandbox
	// process is handed the render (waiting for a free process slot is
	// bounded by the caller's context only). Past it the process and
	// every program it runs (exec functions, helm, git) are killed. Its
	// CPU time is limited to twice Timeout.
	Timeout time.Duration
	// MaxMemory is the most memory a render's process may use, in bytes:
	// its address space as the kernel enforces it (setrlimit), and its
	// resident memory as the parent watches it.
	MaxMemory int64
}

// Options configures a render.
type Options struct {
	Limits Limits
	// RemoteHosts are the hosts remote bases and every HTTP fetch of the
	// render may reach; empty refuses them all.
	RemoteHosts []string
	// EnableHelm lets helmCharts render, with Helm's library inside the
	// sandbox (helm.go): charts in the repository, and charts pulled
	// from chart repositories and OCI registries on RemoteHosts.
	EnableHelm bool
	// EnableExec lets exec KRM functions run.
	EnableExec bool
	// RequireNetworkIsolation refuses to run a render that may reach no
	// host (RemoteHosts empty) outside a network namespace of its own,
	// where the kernel allows none (ErrNoIsolation), instead of relying
	// on the fetch gate alone.
	RequireNetworkIsolation bool
	// Origins records each object's source path, the repository file it
	// came from, in SourcePathAnnotation, for roles[].paths (origin.go).
	// NewPlan removes the annotation; the objects are otherwise those of
	// a render without Origins.
	Origins bool
}

// DefaultOptions returns the defaults: 10,000 objects (about 1 s per
// 4,000 simple objects on 2 cores with roleout's patched kustomize, where
// the release's time grows with the square of the count), 64 MiB read in
// all, 16 MiB per file, one minute, 2 GiB of memory, no remote bases or
// fetches, no helm, no exec.
func DefaultOptions() Options {
	return Options{Limits: Limits{MaxObjects: 10000, MaxBytes: 64 << 20, MaxFileBytes: 16 << 20, Timeout: time.Minute, MaxMemory: 2 << 30}}
}

// TreeIndex gives the git object hash of a path of the checkout (blob
// hashes for files, tree hashes for directories, "" for the root), so that
// renders can be cached by their inputs. sources.TreeHashes implements it.
type TreeIndex interface {
	Hash(path string) (string, bool)
}

// Source is a checkout to render from.
type Source struct {
	// Root is the checkout's directory: the repository root.
	Root string
	// Index, when set, enables the render cache.
	Index TreeIndex
	// Domain is the trust domain the checkout belongs to ("trusted",
	// "untrusted"). Renders of different domains never share a cache
	// entry.
	Domain string
}

// Result is a render's output.
type Result struct {
	Objects []*unstructured.Unstructured
	// Inputs maps every path the render touched (relative to the root) to
	// its git hash in the rendered commit ("" when absent); nil without an
	// index.
	Inputs map[string]string
	// Cached says the objects were reused from an earlier render whose
	// inputs had the same hashes.
	Cached bool
	// Warm says a warm spare (Renderer.Spare), started before the render
	// was asked for, ran it.
	Warm bool
}

// SandboxExecutable is the binary run as the sandbox by renderers that
// name none (Renderer.Executable) and by the isolation probe: any binary
// that imports render, built from the same source; empty means this
// process's own. Tests built with the race detector set it to the plain
// roleout binary, so that each render does not start a race-instrumented
// copy of the test binary; roleout itself leaves it empty.
var SandboxExecutable string

// sandboxExecutable returns exe, else SandboxExecutable, else this
// process's own binary.
func sandboxExecutable(exe string) (string, error) {
	if exe != "" {
		return exe, nil
	}
	if SandboxExecutable != "" {
		return SandboxExecutable, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find roleout's own binary to run the render sandbox: %w", err)
	}
	return exe, nil
}

// Renderer runs kustomize builds, each in a sandbox process, and caches
// them by their inputs. The zero value is ready to use and safe for
// concurrent use.
type Renderer struct {
	// Processes is how many renders may run at once, each in its own
	// process; 0 means one per CPU.
	Processes int
	// Executable is the binary run as the sandbox; empty means
	// SandboxExecutable, else this process's own (roleout, or a test
	// binary), which serves renders when started with the sandbox's
	// environment variable.
	Executable string

	// Spare is how long a warm sandbox process waits for the next render
	// before it exits (spare.go): after a render, the renderer starts
	// one of the same kind that has started and parsed kustomize's
	// OpenAPI schema ahead, so that the next render pays for neither.
	// Each serves one render and exits. 0 keeps none.
	Spare time.Duration
	// Debugf, when set, is told what the renderer decided that a user
	// may want to see at debug level: a render moved off a warm spare,
	// a pass of the patched kustomize that took the release's path.
	Debugf func(format string, args ...any)

	mu       sync.Mutex
	slots    chan struct{}
	cache    map[string]cacheEntry
	spares   map[procKind]*spare
	starting map[procKind]bool
	// startingWG counts spares being started, for Close.
	startingWG sync.WaitGroup
	closed     bool
	// builds counts kustomize builds run (not served from the cache).
	builds int
}

type cacheEntry struct {
	inputs  map[string]string
	objects []*unstructured.Unstructured
}

// Builds returns how many kustomize builds the renderer has run.
func (r *Renderer) Builds() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.builds
}

// Build renders the kustomization in overlay (a slash-separated path
// relative to src.Root) in a sandbox process. Every file it reads must
// lie inside the repository; remote bases and HTTP fetches need an
// allowed host; plugins, helm and exec functions are off unless enabled.
// When src has an index and an earlier build of the same trust domain,
// overlay and options read files (and passed symlinks) with the same
// hashes, its objects are returned (copied) without running kustomize; a
// render that fetched something, or may have run a program (exec or helm
// enabled), is not cached. Build returns when the build ends, ctx is done
// or opts.Limits.Timeout passes; a stopped render's process is killed,
// with every program it ran. Errors name the overlay and carry
// kustomize's own message, paths relative to the repository; a stopped
// render's error wraps ctx's error (context.Canceled or
// context.DeadlineExceeded).
func (r *Renderer) Build(ctx context.Context, src Source, overlay string, opts Options) (Result, error) {
	key := fmt.Sprintf("%s|%s|%+v", src.Domain, overlay, opts)
	if res, ok := r.cached(key, src.Index); ok {
		return res, nil
	}
	dir := filepath.Join(src.Root, filepath.FromSlash(overlay))
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return Result{}, fmt.Errorf("kustomize build %s: directory not found in the repository", overlay)
	}
	root, err := filepath.Abs(src.Root) // the sandbox runs in a directory of its own
	if err != nil {
		return Result{}, fmt.Errorf("kustomize build %s: %w", overlay, err)
	}
	objs, child, warm, err := r.sandboxed(ctx, root, overlay, opts)
	if err != nil {
		return Result{}, fmt.Errorf("kustomize build %s: %w", overlay, err)
	}
	if child.Error != "" {
		return Result{}, fmt.Errorf("kustomize build %s: %s", overlay, child.Error)
	}
	fixManagedBy(objs)
	res := Result{Objects: objs, Warm: warm}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.builds++
	// Programs (exec functions, helm) and remote fetches read what the
	// file system does not see, so their renders are never cached.
	if src.Index != nil && !child.External && !opts.EnableExec && !opts.EnableHelm {
		res.Inputs = map[string]string{}
		for _, p := range child.Inputs {
			res.Inputs[p], _ = src.Index.Hash(p)
		}
		if r.cache == nil {
			r.cache = map[string]cacheEntry{}
		}
		r.cache[key] = cacheEntry{inputs: res.Inputs, objects: deepCopy(objs)}
	}
	return res, nil
}

// cached returns the cached render of key when every input still has
// the same hash in index.
func (r *Renderer) cached(key string, index TreeIndex) (Result, bool) {
	if index == nil {
		return Result{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.cache[key]
	if !ok {
		return Result{}, false
	}
	for p, want := range e.inputs {
		if got, _ := index.Hash(p); got != want {
			return Result{}, false
		}
	}
	return Result{Objects: deepCopy(e.objects), Inputs: e.inputs, Cached: true}, true
}

func deepCopy(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		out[i] = o.DeepCopy()
	}
	return out
}

// errStopped is the error of a render stopped by its context or its time
// limit; it wraps the context's error.
type errStopped struct {
	limit time.Duration // set when the time limit stopped it
	cause error
}

func (e *errStopped) Error() string {
	if e.limit > 0 {
		return fmt.Sprintf("render took longer than %s (limit timeout): raise render.timeout of the app, or make its overlay cheaper", e.limit)
	}
	return fmt.Sprintf("render stopped: %v", e.cause)
}

func (e *errStopped) Unwrap() error { return e.cause }

// errColdNeeded is the error of a render a warm spare must not serve
// (spare.go).
var errColdNeeded = errors.New("a kustomization sets its own OpenAPI schema: render in a cold sandbox process")

// runKustomize runs kustomize on dir through fs, turning a panic into an
// error, and returns each object as JSON. It runs in a sandbox child,
// alone: kustomize's process-global state (its OpenAPI schema) dies with
// the process. With opts.Origins it also returns each object's source
// path (SourcePathAnnotation, origin.go), which the parent sets.
func runKustomize(fs *repoFS, dir string, opts Options) (objs []json.RawMessage, sources []string, err error) {
	defer openapi.ResetOpenAPI()
	defer func() {
		// In a warm spare, a kustomization that set its own schema
		// (one the walk before the build did not read) found the
		// built-in one parsed already: whatever came out, it may not be
		// what a cold process makes.
		if warmStarted && openapi.GetSchemaVersion() != openapi.DefaultOpenAPI {
			objs, sources, err = nil, nil, errColdNeeded
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kustomize panicked: %v", r)
		}
	}()
	kopts := krusty.MakeDefaultOptions()
	kopts.LoadRestrictions = types.LoadRestrictionsNone // fs confines reads to the repository
	kopts.PluginConfig = types.DisabledPluginConfig()
	if opts.EnableExec {
		kopts.PluginConfig = types.MakePluginConfig(types.PluginRestrictionsNone, types.BploUseStaticallyLinked)
		kopts.PluginConfig.FnpLoadingOptions.EnableExec = true
	}
	if opts.EnableHelm {
		if err := useHelm(kopts, fs, opts); err != nil {
			return nil, nil, err
		}
	}
	if opts.Origins {
		fs.origins = fs.resolve(dir)
	}
	resMap, err := krusty.MakeKustomizer(kopts).Run(fs, dir)
	if err != nil {
		return nil, nil, err
	}
	if opts.Origins {
		overlay, _ := fs.rel(fs.origins)
		if sources, err = fs.takeOrigins(resMap, overlay); err != nil {
			return nil, nil, fmt.Errorf("read the objects' origins: %w", err)
		}
	}
	// The parent decodes the JSON into unstructured objects, with the
	// int64/float64 values they need (kustomize's maps hold plain ints).
	resources := resMap.Resources()
	objs, err = parallel(len(resources), func(i int) (json.RawMessage, error) {
		data, err := resources[i].MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", resources[i].CurId(), err)
		}
		return data, nil
	})
	return objs, sources, err
}

// parallel returns f(0), …, f(n-1), computed on every CPU: the objects of
// a render are independent once kustomize is done, and turning a
// thousand of them into JSON (or back) is a good part of a large
// render's time. It returns the error of the first index that fails.
func parallel[R any](n int, f func(i int) (R, error)) ([]R, error) {
	out := make([]R, n)
	errs := make([]error, n)
	workers := min(runtime.GOMAXPROCS(0), n/64+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				out[i], errs[i] = f(i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// explain returns kustomize's error message with the checkout's path cut
// out and a hint where roleout's own settings are the cause.
func explain(err error, root string) string {
	msg := strings.ReplaceAll(err.Error(), root+string(filepath.Separator), "")
	var outside *errOutside
	switch {
	case errors.As(err, &outside):
		return msg
	case strings.Contains(msg, helmErrorPrefix):
		return explainHelm(msg)
	case strings.Contains(msg, "--enable-helm"):
		return msg + " (helmCharts are off for this app: set render.enableHelm: true to allow them)"
	case strings.Contains(msg, "plugins disabled") || strings.Contains(msg, "external plugins"):
		return msg + " (exec plugins are off for this app: set render.enableExec: true to allow them)"
	case strings.Contains(msg, "already registered id"):
		return msg + " (two objects with the same kind, namespace and name)"
	}
	return msg
}
