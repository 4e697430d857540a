package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The sandbox: every kustomize build runs in a child process, the binary
// that imports render executed again with sandboxEnv set (see
// sandbox_child.go). The child limits its own address space and CPU time
// with setrlimit; the parent kills the child's whole process group when
// the render's wall-clock limit passes, its context is done, its resident
// memory passes the limit or its result grows past resultLimit. The child
// inherits no credentials: its environment is PATH, HOME and a TMPDIR of
// its own, and its HTTP goes through fetchGate. No lock is held across a
// render; Renderer.Processes bounds how many run at once.

// watchEvery is how often the parent samples a child's resident memory.
const watchEvery = 20 * time.Millisecond

// resultLimit is the most bytes a child's result may take: what the
// render may read (maxBytes), and at least minResultLimit. A small patch
// applied to many objects multiplies its bytes; the result, decoded in
// the agent's own memory, stays bounded by what the operator set.
func resultLimit(l Limits) int64 {
	return max(l.MaxBytes, minResultLimit)
}

// minResultLimit is the result limit of a render whose maxBytes is
// smaller: room for the JSON of a render of tiny files.
const minResultLimit = 8 << 20

// errMemory is the error of a render killed for its memory.
type errMemory struct{ limit int64 }

func (e *errMemory) Error() string {
	return fmt.Sprintf("render used more than %d MiB of memory (limit maxMemory): raise render.maxMemory of the app, or make its overlay cheaper (a YAML alias bomb hits this)",
		e.limit>>20)
}

// errResultSize is the error of a render whose output is too large.
type errResultSize struct{ limit int64 }

func (e *errResultSize) Error() string {
	return fmt.Sprintf("render produced more than %d MiB of objects (limit render.maxBytes, at least 8 MiB): raise render.maxBytes of the app "+
		"if it is meant to, or look for a patch applied to many objects", e.limit>>20)
}

// slot waits for one of the renderer's process slots, or ctx.
func (r *Renderer) slot(ctx context.Context) (release func(), err error) {
	r.mu.Lock()
	if r.slots == nil {
		n := r.Processes
		if n <= 0 {
			n = runtime.NumCPU()
		}
		r.slots = make(chan struct{}, n)
	}
	slots := r.slots
	r.mu.Unlock()
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, nil
	case <-ctx.Done():
		return nil, &errStopped{cause: ctx.Err()}
	}
}

// sandboxed renders overlay of root in a child process (a warm spare
// when the renderer keeps one, spare.go) and returns the child's result
// with its objects decoded, and whether a spare served it.
func (r *Renderer) sandboxed(ctx context.Context, root, overlay string, opts Options) ([]*unstructured.Unstructured, childResult, bool, error) {
	kind, err := r.kind(opts)
	if err != nil {
		return nil, childResult{}, false, err
	}
	req, err := json.Marshal(childRequest{Root: root, Overlay: overlay, Options: opts})
	if err != nil {
		return nil, childResult{}, false, err
	}
	defer r.refill(kind) // after the slot is free
	release, err := r.slot(ctx)
	if err != nil {
		return nil, childResult{}, false, err
	}
	defer release()
	child := &sandboxChild{limits: opts.Limits, maxResult: resultLimit(opts.Limits)}
	p := r.takeSpare(kind)
	warm := p != nil
	if p == nil {
		if p, err = startProc(kind, false); err != nil {
			return nil, childResult{}, false, err
		}
	}
	handed := time.Now()
	res, err := child.result(ctx, p, req)
	if err == nil && res.Cold {
		r.debugf("kustomize build %s: a kustomization of it sets its own OpenAPI schema, which the warm sandbox process's, parsed ahead, would change: rendered again in a process of its own", overlay)
		warm = false
		// The render's time limit covers both processes.
		if opts.Limits.Timeout > 0 {
			left := opts.Limits.Timeout - time.Since(handed)
			if left <= 0 {
				return nil, childResult{}, false, &errStopped{limit: opts.Limits.Timeout, cause: context.DeadlineExceeded}
			}
			rest := opts
			rest.Limits.Timeout = left
			child.limits = rest.Limits
			if req, err = json.Marshal(childRequest{Root: root, Overlay: overlay, Options: rest}); err != nil {
				return nil, childResult{}, false, err
			}
		}
		if p, err = startProc(kind, false); err != nil {
			return nil, childResult{}, false, err
		}
		res, err = child.result(ctx, p, req)
	}
	if err != nil {
		return nil, res, warm, err
	}
	for _, f := range res.Fallbacks {
		r.debugf("kustomize build %s: %s: it took kustomize's own, slower path (same output)", overlay, f)
	}
	if res.Error != "" {
		return nil, res, warm, nil
	}
	objs, err := decodeObjects(&res, opts)
	return objs, res, warm, err
}

// kind returns the kind of process a render with opts runs in.
func (r *Renderer) kind(opts Options) (procKind, error) {
	exe, err := sandboxExecutable(r.Executable)
	if err != nil {
		return procKind{}, err
	}
	return procKind{exe: exe, offline: len(opts.RemoteHosts) == 0, requireIsolation: opts.RequireNetworkIsolation}, nil
}

// result serves req in p (serve) and reads the child's result.
func (c *sandboxChild) result(ctx context.Context, p *childProc, req []byte) (childResult, error) {
	data, err := c.serve(ctx, p, req)
	if err != nil {
		return childResult{}, err
	}
	var res childResult
	if err := json.Unmarshal(data, &res); err != nil {
		return childResult{}, fmt.Errorf("render sandbox: read the result: %w", err)
	}
	return res, nil
}

// decodeObjects checks the size of a child's result and decodes its
// objects, on every CPU, setting their source paths when opts asks for
// Origins.
func decodeObjects(res *childResult, opts Options) ([]*unstructured.Unstructured, error) {
	if max := opts.Limits.MaxObjects; max > 0 && len(res.Objects) > max {
		return nil, fmt.Errorf("%d objects, over the limit of %d (limit maxObjects)", len(res.Objects), max)
	}
	if opts.Origins && len(res.Sources) != len(res.Objects) {
		return nil, fmt.Errorf("render sandbox: %d source paths for %d objects", len(res.Sources), len(res.Objects))
	}
	objs, err := parallel(len(res.Objects), func(i int) (*unstructured.Unstructured, error) {
		o := &unstructured.Unstructured{}
		if err := o.UnmarshalJSON(res.Objects[i]); err != nil {
			return nil, fmt.Errorf("render sandbox: object %d: %w", i, err)
		}
		if opts.Origins {
			setSourcePath(o, res.Sources[i])
		}
		res.Objects[i] = nil
		return o, nil
	})
	res.Objects = nil
	return objs, err
}

// sandboxChild is the limits one render runs under in its process.
type sandboxChild struct {
	limits    Limits
	maxResult int64
}

// serve sends req to the child process p, waits for its result under the
// limits and returns it. p is killed, with every program it ran, and its
// directory removed, whatever happens.
func (c *sandboxChild) serve(ctx context.Context, p *childProc, req []byte) ([]byte, error) {
	p.served = true
	defer p.kill()
	go func() {
		// A child that died leaves the write failing: what it printed
		// says why (crashed).
		_, _ = p.stdin.Write(req)
		p.stdin.Close()
	}()
	got := make(chan childOutput, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(p.result, c.maxResult+1))
		got <- childOutput{data, err}
	}()
	if stop := c.watch(ctx, p.cmd.Process.Pid, got); stop != nil {
		return nil, stop
	}
	r := <-got
	if int64(len(r.data)) > c.maxResult {
		// The child blocks on a result nobody reads any more.
		return nil, &errResultSize{limit: c.maxResult}
	}
	<-p.exited
	waitErr := p.waitErr
	if errors.Is(waitErr, exec.ErrWaitDelay) {
		// The child exited 0 with its result written, but its stderr's
		// copy was not done within WaitDelay (a loaded machine, or a
		// program holding the pipe): only the stderr tail, kept for
		// crash messages, may be short.
		waitErr = nil
	}
	if waitErr != nil || r.err != nil || len(r.data) == 0 {
		return nil, c.crashed(waitErr, p.stderr.String())
	}
	return r.data, nil
}

// childOutput is what the parent read of a child's result descriptor.
type childOutput struct {
	data []byte
	err  error
}

// watch waits until the child's result is complete, and returns the
// reason to kill it first when there is one: the context, the time limit,
// its memory or the size of its result. When the result is complete it
// puts it back on got and returns nil.
func (c *sandboxChild) watch(ctx context.Context, pid int, got chan childOutput) error {
	var deadline <-chan time.Time
	if c.limits.Timeout > 0 {
		t := time.NewTimer(c.limits.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	ticks := 0
	for {
		select {
		case r := <-got:
			got <- r
			return nil
		case <-ctx.Done():
			return &errStopped{cause: ctx.Err()}
		case <-deadline:
			return &errStopped{limit: c.limits.Timeout, cause: context.DeadlineExceeded}
		case <-tick.C:
			ticks++
			if max := c.limits.MaxMemory; max > 0 && (residentBytes(pid) > max || ticks%groupEvery == 0 && groupResidentBytes(pid) > max) {
				return &errMemory{limit: max}
			}
		}
	}
}

// crashed explains a child that ended without a result.
func (c *sandboxChild) crashed(waitErr error, out string) error {
	if strings.Contains(out, "out of memory") || strings.Contains(out, "cannot allocate memory") {
		return &errMemory{limit: c.limits.MaxMemory}
	}
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch ws.Signal() {
			case syscall.SIGXCPU:
				return fmt.Errorf("render used more CPU time than twice its time limit of %s (limit timeout)", c.limits.Timeout)
			case syscall.SIGKILL:
				return fmt.Errorf("render was killed: it passed its CPU time limit (twice its time limit of %s), or the kernel ran out of memory", c.limits.Timeout)
			}
		}
	}
	msg := strings.TrimSpace(out)
	if i := strings.LastIndexByte(msg, '\n'); len(msg) > 2000 && i >= 0 {
		msg = msg[i+1:]
	}
	return fmt.Errorf("render sandbox ended without a result (%v): %s", waitErr, msg)
}

// sandboxEnviron is a child's whole environment: no variable of the
// agent's (tokens, KUBECONFIG, proxies) reaches it. mode is sandboxEnv's
// value: "1", or warmMode for a warm spare.
func sandboxEnviron(tmp, mode string) []string {
	env := []string{sandboxEnv + "=" + mode, "TMPDIR=" + tmp, "HOME=" + tmp}
	for _, k := range []string{"PATH", "GOCOVERDIR", "GORACE"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// tailBuffer keeps the last 64 KiB written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - 64<<10; over > 0 {
		t.b = t.b[over:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }
