package render

import (
	"os"
	"runtime"
	"time"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// Warm spares. A sandbox process pays, before its render's own work,
// the start of a binary that links Kubernetes and Helm (about 30 ms of
// package initialisation), a PID and network namespace, and, for any
// overlay with a strategic-merge patch, the parse of kustomize's built-in
// OpenAPI schema (80 ms or more). A renderer with Renderer.Spare set
// starts, after each render, one process of the same kind (procKind:
// binary and network namespace) that does all of that ahead and then
// waits for a request; the next render of that kind is handed to it.
//
// A spare is no shared worker: it has read nothing of any render before
// it is taken, it serves exactly one, under that render's limits
// (applied when its request arrives, as in any child), and exits. So no
// state passes from one render, or one trust domain, to another. What
// it parsed ahead is the schema a cold process parses on first use; a
// kustomization that sets its own (the openapi field) would change what
// kustomize does with it, so such a render is refused by the warm
// process (childResult.Cold) and rendered again in a cold one: before the
// build when the walk of the kustomizations finds the field
// (checkRemotes), and after it when kustomize set a schema anyway (a
// remote base's kustomization, which the walk does not read; then
// whatever the build ran, it ran twice).

// warmMode is the sandboxEnv value of a warm spare.
const warmMode = "warm"

// sandboxReadyFD is the descriptor a warm spare writes one byte to when
// it is ready: the second of exec.Cmd.ExtraFiles.
const sandboxReadyFD = 4

// warmStarted is set in a process started as a warm spare, whose
// kustomize OpenAPI schema was parsed before its request came.
var warmStarted bool

// warmUp runs in a warm spare before it reads its request: it parses
// kustomize's built-in OpenAPI schema, collects the garbage that made,
// and says it is ready.
func warmUp() {
	warmStarted = true
	_ = openapi.Schema()
	runtime.GC()
	ready := os.NewFile(sandboxReadyFD, "ready")
	_, _ = ready.Write([]byte{1})
	ready.Close()
}

// spare is a warm process waiting for a render, and the timer that
// retires it.
type spare struct {
	p    *childProc
	idle *time.Timer
}

// takeSpare returns the renderer's warm spare of kind, if it has one
// that is still alive; it is the caller's to serve and kill.
func (r *Renderer) takeSpare(kind procKind) *childProc {
	r.mu.Lock()
	s := r.spares[kind]
	delete(r.spares, kind)
	r.mu.Unlock()
	if s == nil {
		return nil
	}
	s.idle.Stop()
	select {
	case <-s.p.exited: // it died waiting
		s.p.kill()
		return nil
	default:
		return s.p
	}
}

// refill starts a warm spare of kind, in the background, when the
// renderer keeps spares (Spare) and has none of that kind. A spare that
// does not start is no error: the next render starts its own process.
func (r *Renderer) refill(kind procKind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Spare <= 0 || r.closed || r.spares[kind] != nil || r.starting[kind] {
		return
	}
	if r.starting == nil {
		r.starting = map[procKind]bool{}
	}
	r.starting[kind] = true
	r.startingWG.Add(1)
	go r.startSpare(kind)
}

// startSpare starts the spare refill decided on.
func (r *Renderer) startSpare(kind procKind) {
	defer r.startingWG.Done()
	p, err := startProc(kind, true)
	if err != nil {
		r.debugf("no warm sandbox process: %v", err)
	}
	r.mu.Lock()
	delete(r.starting, kind)
	closed := r.closed
	if err == nil && !closed {
		s := &spare{p: p}
		s.idle = time.AfterFunc(r.Spare, func() { r.retire(kind, s) })
		if r.spares == nil {
			r.spares = map[procKind]*spare{}
		}
		r.spares[kind] = s
	}
	r.mu.Unlock()
	if err == nil && closed {
		p.kill()
	}
}

// retire kills s, the spare of kind, unless a render took it.
func (r *Renderer) retire(kind procKind, s *spare) {
	r.mu.Lock()
	mine := r.spares[kind] == s
	if mine {
		delete(r.spares, kind)
	}
	r.mu.Unlock()
	if mine {
		s.p.kill()
	}
}

// Close kills the renderer's warm spares, once those being started
// have started, and starts no more. Renders still run, each in a process
// of its own.
func (r *Renderer) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.startingWG.Wait()
	r.mu.Lock()
	spares := r.spares
	r.spares = nil
	r.mu.Unlock()
	for _, s := range spares {
		s.idle.Stop()
		s.p.kill()
	}
}

// SpareReady waits until the renderer's warm spare of a render with
// opts is ready to take a render, or until timeout; it reports whether
// one is. The benchmarks measure renders handed to a ready spare.
func (r *Renderer) SpareReady(opts Options, timeout time.Duration) bool {
	kind, err := r.kind(opts)
	if err != nil {
		return false
	}
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		s := r.spares[kind]
		r.mu.Unlock()
		if s != nil {
			select {
			case <-s.p.ready:
				select {
				case <-s.p.exited:
					return false
				default:
					return true
				}
			case <-deadline:
				return false
			}
		}
		select {
		case <-deadline:
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// debugf logs through Debugf, when set.
func (r *Renderer) debugf(format string, args ...any) {
	if r.Debugf != nil {
		r.Debugf(format, args...)
	}
}
