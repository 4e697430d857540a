package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"syscall"

	"sigs.k8s.io/kustomize/api/resmap"
)

// sandboxEnv is the environment variable that makes a process that
// imports render serve one render request as a sandbox child instead of
// running its own main (see serveChild).
const sandboxEnv = "ROLEOUT_RENDER_SANDBOX"

// sandboxResultFD is the file descriptor a child writes its result to:
// the first of exec.Cmd.ExtraFiles, so that nothing a program the render
// runs prints can be mistaken for the result.
const sandboxResultFD = 3

// childRequest is what the parent sends a sandbox child on its standard
// input.
type childRequest struct {
	Root    string  `json:"root"`
	Overlay string  `json:"overlay"`
	Options Options `json:"options"`
}

// childResult is what a sandbox child writes to sandboxResultFD.
type childResult struct {
	// Objects are the rendered objects, as JSON.
	Objects []json.RawMessage `json:"objects,omitempty"`
	// Sources are the objects' source paths, one per object, when the
	// request asked for Origins.
	Sources []string `json:"sources,omitempty"`
	// Inputs are the paths (relative to the root) the render touched,
	// symlinks passed through included.
	Inputs []string `json:"inputs,omitempty"`
	// External says the render read something the file system does not
	// see (a remote base or an allowed fetch): it is never cached.
	External bool `json:"external,omitempty"`
	// Error is the render's error, formatted for the user.
	Error string `json:"error,omitempty"`
	// Cold says a warm spare refused the render: a kustomization of it
	// sets its own OpenAPI schema (spare.go). It must run again in a
	// cold process.
	Cold bool `json:"cold,omitempty"`
	// Fallbacks say why passes of the patched kustomize took the
	// release's path (resmap.Fallback), once each.
	Fallbacks []string `json:"fallbacks,omitempty"`
}

// The child is started by re-executing the binary that imports render
// (roleout, or a test binary) with sandboxEnv set; it serves one request
// and exits before the binary's own main or TestMain runs. A render's
// helm commands are the same binary again, with sandboxEnv set to
// helmMode (helm.go).
func init() {
	switch mode := os.Getenv(sandboxEnv); mode {
	case "1", warmMode:
		// The result descriptor is the child's alone: no program the
		// render runs inherits it to write a result of its own.
		syscall.CloseOnExec(sandboxResultFD)
		if mode == warmMode {
			syscall.CloseOnExec(sandboxReadyFD)
			warmUp()
		}
		os.Exit(serveChild(os.Stdin, os.NewFile(sandboxResultFD, "result")))
	case helmMode:
		os.Exit(serveHelm(os.Args[1:], os.Stdout, os.Stderr))
	case probeMode:
		os.Exit(0)
	}
}

// serveChild reads one request from in, renders it under the request's
// memory and CPU limits with every HTTP fetch gated, and writes the
// result to out. It returns the process's exit code.
func serveChild(in io.Reader, out io.WriteCloser) int {
	defer out.Close()
	var req childRequest
	if err := json.NewDecoder(io.LimitReader(in, 1<<20)).Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "render sandbox: read the request: %v\n", err)
		return 2
	}
	limitSelf(req.Options.Limits)
	gate := newFetchGate(req.Options.RemoteHosts, req.Options.Limits)
	http.DefaultTransport = gate
	http.DefaultClient = &http.Client{Transport: gate}

	// What the patched kustomize did the release's way (and why) goes
	// back to the parent, which says so at debug level.
	var mu sync.Mutex
	var fallbacks []string
	resmap.Fallback = func(reason string) {
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(fallbacks, reason) {
			fallbacks = append(fallbacks, reason)
		}
	}
	res := renderInChild(req, gate)
	mu.Lock()
	res.Fallbacks = fallbacks
	mu.Unlock()
	if err := json.NewEncoder(out).Encode(res); err != nil {
		fmt.Fprintf(os.Stderr, "render sandbox: write the result: %v\n", err)
		return 2
	}
	return 0
}

// addressSpaceHeadroom is what a child's address-space limit allows
// beyond Limits.MaxMemory: the Go runtime reserves about 1.5 GiB of
// address space as it starts (page summaries, arena hints) and the
// binary maps its own text and data (roleout links Kubernetes); none of
// it is memory. The address-space limit is the kernel's backstop against
// one huge allocation; resident memory is held to MaxMemory by the
// parent.
const addressSpaceHeadroom = 4 << 30

// limitSelf sets the kernel's limits on this process: its address space
// (RLIMIT_AS at MaxMemory plus addressSpaceHeadroom, except under the
// race detector, whose shadow memory needs terabytes of address space)
// and its CPU time (RLIMIT_CPU, twice the wall-clock limit). The parent
// holds its resident memory to MaxMemory.
func limitSelf(l Limits) {
	// A child lives for one render: the collector runs when the heap has
	// grown to five times what survived the last collection (not twice),
	// and always before it reaches half of MaxMemory.
	debug.SetGCPercent(400)
	if l.MaxMemory > 0 {
		debug.SetMemoryLimit(l.MaxMemory / 2)
		if !raceBuild {
			lim := uint64(l.MaxMemory + addressSpaceHeadroom)
			_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
		}
	}
	if l.Timeout > 0 {
		secs := uint64(2*l.Timeout.Seconds()) + 1
		_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: secs, Max: secs + 1})
	}
}

// renderInChild runs the render itself: the confined file system, the
// remote-base check and kustomize. The wall-clock limit is the parent's.
func renderInChild(req childRequest, gate *fetchGate) childResult {
	opts := req.Options
	fs, err := newRepoFS(req.Root, opts.Limits, len(opts.RemoteHosts) > 0)
	if err != nil {
		return childResult{Error: err.Error()}
	}
	dir := filepath.Join(fs.root, filepath.FromSlash(req.Overlay))
	if err := checkRemotes(fs, dir, opts.RemoteHosts); err != nil {
		return childResult{Error: err.Error()}
	}
	if warmStarted && fs.customSchema {
		return childResult{Cold: true} // before anything of the build runs
	}
	objs, sources, err := runKustomize(fs, dir, opts)
	if errors.Is(err, errColdNeeded) {
		return childResult{Cold: true}
	}
	if err != nil {
		msg := explain(err, fs.root)
		var refused *errFetchRefused
		if errors.As(err, &refused) {
			msg = refused.Error()
		}
		return childResult{Error: msg}
	}
	if max := opts.Limits.MaxObjects; max > 0 && len(objs) > max {
		return childResult{Error: fmt.Sprintf("%d objects, over the limit of %d (limit maxObjects)", len(objs), max)}
	}
	res := childResult{External: fs.external || gate.used(), Objects: objs, Sources: sources}
	for p := range fs.inputs {
		res.Inputs = append(res.Inputs, p)
	}
	return res
}
