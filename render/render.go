package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// kustomizeLock serialises every use of kustomize: its OpenAPI schema is
// process-global state that a build may replace (a kustomization's
// openapi field), so each build runs alone and resets it after. It is a
// channel of one so that waiting for it can be cancelled.
var kustomizeLock = make(chan struct{}, 1)

// Limits bound one render.
type Limits struct {
	// MaxObjects is the most objects a render may produce.
	MaxObjects int
	// MaxBytes is the most bytes a render may read in all.
	MaxBytes int64
	// MaxFileBytes is the largest file a render may read.
	MaxFileBytes int64
	// Timeout bounds a render's time, from when its kustomize build
	// starts (waiting for another app's build to finish is bounded by the
	// caller's context only). Past it Build returns an error at once and
	// abandons the build, which then fails at its next file access; a
	// program the build runs (an exec function, helm, git) runs on until
	// it exits, and until then other builds wait.
	Timeout time.Duration
}

// Options configures a render.
type Options struct {
	Limits Limits
	// RemoteHosts are the hosts remote bases may come from; empty
	// refuses every remote base.
	RemoteHosts []string
	// EnableHelm lets helmCharts run the helm program.
	EnableHelm bool
	// EnableExec lets exec KRM functions run.
	EnableExec bool
}

// DefaultOptions returns the defaults: 10,000 objects (kustomize's time
// grows with the square of the object count: about 27 s for 5,000 on 2
// cores), 64 MiB read in all, 16 MiB per file, one minute, no remote
// bases, no helm, no exec.
func DefaultOptions() Options {
	return Options{Limits: Limits{MaxObjects: 10000, MaxBytes: 64 << 20, MaxFileBytes: 16 << 20, Timeout: time.Minute}}
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
}

// Renderer runs kustomize builds and caches them by their inputs. The
// zero value is ready to use and safe for concurrent use.
type Renderer struct {
	mu    sync.Mutex
	cache map[string]cacheEntry
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
// relative to src.Root). Every file it reads must lie inside the
// repository; remote bases need an allowed host; plugins, helm and exec
// functions are off unless enabled. When src has an index and an earlier
// build of the same overlay and options read files with the same hashes,
// its objects are returned (copied) without running kustomize; a render
// that read a remote base, or may have run a program (exec or helm
// enabled), is not cached. Build returns when the build ends, ctx is done
// or opts.Limits.Timeout passes. Errors name the overlay and carry
// kustomize's own message, paths relative to the repository; a stopped
// render's error wraps ctx's error (context.Canceled or
// context.DeadlineExceeded).
func (r *Renderer) Build(ctx context.Context, src Source, overlay string, opts Options) (Result, error) {
	key := fmt.Sprintf("%s|%+v", overlay, opts)
	if res, ok := r.cached(key, src.Index); ok {
		return res, nil
	}
	dir := filepath.Join(src.Root, filepath.FromSlash(overlay))
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return Result{}, fmt.Errorf("kustomize build %s: directory not found in the repository", overlay)
	}
	fs, err := newRepoFS(ctx, src.Root, opts.Limits, len(opts.RemoteHosts) > 0)
	if err != nil {
		return Result{}, err
	}
	if err := checkRemotes(fs, dir, opts.RemoteHosts); err != nil {
		return Result{}, fmt.Errorf("kustomize build %s: %w", overlay, err)
	}
	objs, err := build(ctx, fs, dir, opts)
	var stop *errStopped
	if errors.As(err, &stop) {
		return Result{}, fmt.Errorf("kustomize build %s: %w", overlay, stop)
	}
	if err != nil {
		return Result{}, fmt.Errorf("kustomize build %s: %s", overlay, explain(err, fs.root))
	}
	if max := opts.Limits.MaxObjects; max > 0 && len(objs) > max {
		return Result{}, fmt.Errorf("kustomize build %s: %d objects, over the limit of %d (limit maxObjects)", overlay, len(objs), max)
	}
	res := Result{Objects: objs}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.builds++
	// Programs (exec functions, helm) and remote bases read what the
	// file system does not see, so their renders are never cached.
	if src.Index != nil && !fs.external && !opts.EnableExec && !opts.EnableHelm {
		res.Inputs = map[string]string{}
		for p := range fs.inputs {
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

// build runs kustomize on dir through fs, alone (under kustomizeLock),
// and returns when it ends, when ctx is done or when the time limit
// passes, whichever comes first. A build it stops waiting for is
// abandoned: fs fails its next file access, and it releases the lock when
// it ends.
func build(ctx context.Context, fs *repoFS, dir string, opts Options) ([]*unstructured.Unstructured, error) {
	select {
	case kustomizeLock <- struct{}{}:
	case <-ctx.Done():
		return nil, &errStopped{cause: ctx.Err()}
	}
	limit := opts.Limits.Timeout
	bctx, cancel := ctx, context.CancelFunc(func() {})
	if limit > 0 {
		bctx, cancel = context.WithTimeout(ctx, limit)
	}
	defer cancel()
	fs.ctx = bctx
	type result struct {
		objs []*unstructured.Unstructured
		err  error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-kustomizeLock }()
		objs, err := runKustomize(fs, dir, opts)
		done <- result{objs, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && bctx.Err() != nil {
			return nil, stopped(ctx, bctx, limit)
		}
		return r.objs, r.err
	case <-bctx.Done():
		return nil, stopped(ctx, bctx, limit)
	}
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

// stopped returns the error of a build whose context bctx (derived from
// the caller's ctx with the time limit) is done.
func stopped(ctx, bctx context.Context, limit time.Duration) error {
	if ctx.Err() != nil {
		return &errStopped{cause: ctx.Err()}
	}
	return &errStopped{limit: limit, cause: bctx.Err()}
}

// runKustomize runs kustomize on dir through fs, turning a panic into an
// error and resetting the OpenAPI schema after. The caller holds
// kustomizeLock.
func runKustomize(fs *repoFS, dir string, opts Options) (objs []*unstructured.Unstructured, err error) {
	defer openapi.ResetOpenAPI()
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
		kopts.PluginConfig.HelmConfig.Enabled = true
		kopts.PluginConfig.HelmConfig.Command = "helm"
	}
	resMap, err := krusty.MakeKustomizer(kopts).Run(fs, dir)
	if err != nil {
		return nil, err
	}
	for _, res := range resMap.Resources() {
		// A JSON round trip gives the int64/float64 values unstructured
		// objects need (kustomize's maps hold plain ints).
		data, err := res.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", res.CurId(), err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("%s: %w", res.CurId(), err)
		}
		objs = append(objs, u)
	}
	return objs, nil
}

// explain returns kustomize's error message with the checkout's path cut
// out and a hint where roleout's own settings are the cause.
func explain(err error, root string) string {
	msg := strings.ReplaceAll(err.Error(), root+string(filepath.Separator), "")
	var outside *errOutside
	switch {
	case errors.As(err, &outside):
		return msg
	case strings.Contains(msg, "--enable-helm"):
		return msg + " (helmCharts are off for this app: set render.enableHelm: true to allow them)"
	case strings.Contains(msg, "plugins disabled") || strings.Contains(msg, "external plugins"):
		return msg + " (exec plugins are off for this app: set render.enableExec: true to allow them)"
	case strings.Contains(msg, "already registered id"):
		return msg + " (two objects with the same kind, namespace and name)"
	}
	return msg
}
