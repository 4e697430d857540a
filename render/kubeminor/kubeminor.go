package kubeminor

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/roleout/roleout/render/predict"
)

// DirEnv names the environment variable that sets the helpers'
// directory.
const DirEnv = "ROLEOUT_PREDICTORS"

// Dir is where the helpers are: $ROLEOUT_PREDICTORS, else predictors/
// beside the running binary (bin/predictors for bin/roleout, where make
// predictors puts them).
func Dir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(exe), "predictors")
}

// Helpers are the helpers of one directory. The zero value models no
// minor.
type Helpers struct {
	dir string
	// Timeout bounds one answer (default 30 s).
	Timeout time.Duration

	mu    sync.Mutex
	procs map[string]*helper
	// found is each minor's helper binary as first looked up ("" for
	// none): Models is asked for every workload of every plan.
	found map[string]string
}

// New returns the helpers in dir.
func New(dir string) *Helpers { return &Helpers{dir: dir, Timeout: 30 * time.Second} }

var _ predict.Minors = (*Helpers)(nil)

// minorRE is a minor as Models takes it.
var minorRE = regexp.MustCompile(`^1\.[0-9]{1,3}$`)

// pathLocked returns minor's helper binary, "" when it has none.
func (h *Helpers) pathLocked(minor string) string {
	if h.dir == "" || !minorRE.MatchString(minor) {
		return ""
	}
	if p, ok := h.found[minor]; ok {
		return p
	}
	p := filepath.Join(h.dir, "kubernetes-"+minor)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		p = ""
	}
	if h.found == nil {
		h.found = map[string]string{}
	}
	h.found[minor] = p
	return p
}

// Models reports whether minor ("1.36") has a helper.
func (h *Helpers) Models(minor string) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pathLocked(minor) != ""
}

// Predict asks minor's helper for the identity its controllers give
// object, a workload of kind.
func (h *Helpers) Predict(minor, kind string, object []byte, collisionCount *int32) (predict.KubeIdentity, error) {
	p, err := h.helper(minor)
	if err != nil {
		return predict.KubeIdentity{}, err
	}
	id, err := p.ask(predict.KubeRequest{Kind: kind, Object: object, CollisionCount: collisionCount}, h.Timeout)
	if err != nil && !errors.As(err, new(*answerError)) {
		// The helper is in an unknown state: the next request starts it
		// again.
		h.mu.Lock()
		if h.procs[minor] == p {
			delete(h.procs, minor)
		}
		h.mu.Unlock()
		p.kill()
		return predict.KubeIdentity{}, fmt.Errorf("Kubernetes %s prediction helper: %w", minor, err)
	}
	return id, err
}

// Close ends every helper.
func (h *Helpers) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for m, p := range h.procs {
		p.kill()
		delete(h.procs, m)
	}
}

// helper returns minor's running helper, started when there is none.
func (h *Helpers) helper(minor string) (*helper, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p := h.procs[minor]; p != nil {
		return p, nil
	}
	path := h.pathLocked(minor)
	if path == "" {
		return nil, fmt.Errorf("no prediction helper for Kubernetes %s in %s", minor, h.dir)
	}
	p, err := start(path)
	if err != nil {
		return nil, err
	}
	if h.procs == nil {
		h.procs = map[string]*helper{}
	}
	h.procs[minor] = p
	return p, nil
}

// answerError is the helper's own refusal of a workload: it stays up.
type answerError struct{ msg string }

func (e *answerError) Error() string { return e.msg }

// maxAnswer bounds one line of a helper's answer.
const maxAnswer = 64 << 10

// helper is one running helper process; one request at a time.
type helper struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	stdout io.Closer
	out    *bufio.Reader
	stderr *tail
	// exited is closed once the helper has exited and its stderr is read.
	exited chan struct{}
}

// start starts the helper at path.
func start(path string) (*helper, error) {
	cmd := exec.Command(path)
	cmd.Env = []string{}
	cmd.Dir = "/"
	// A group of its own: kill ends whatever it started too, which could
	// hold its stdout open.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// A pipe of our own, not cmd.StdoutPipe: Wait closes that one once
	// the helper exits, which would lose what it wrote last (its answer,
	// or the line that says why it died) to a read still under way.
	out, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	p := &helper{cmd: cmd, in: in, stdout: out, out: bufio.NewReader(out), stderr: &tail{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	err = cmd.Start()
	w.Close()
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// ask sends req and reads the answer, within timeout.
func (p *helper) ask(req predict.KubeRequest, timeout time.Duration) (predict.KubeIdentity, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	data, err := json.Marshal(req)
	if err != nil {
		return predict.KubeIdentity{}, &answerError{err.Error()}
	}
	timer := time.AfterFunc(timeout, p.kill)
	defer timer.Stop()
	if _, err := p.in.Write(append(data, '\n')); err != nil {
		return predict.KubeIdentity{}, p.failed(err)
	}
	line, err := p.readLine()
	if err != nil {
		return predict.KubeIdentity{}, p.failed(err)
	}
	var resp predict.KubeAnswer
	if err := json.Unmarshal(line, &resp); err != nil {
		return predict.KubeIdentity{}, fmt.Errorf("unreadable answer: %w", err)
	}
	if resp.Error != "" {
		return predict.KubeIdentity{}, &answerError{resp.Error}
	}
	if resp.Identity == nil {
		return predict.KubeIdentity{}, fmt.Errorf("an answer with no identity")
	}
	return *resp.Identity, nil
}

// readLine reads one line of at most maxAnswer bytes.
func (p *helper) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, more, err := p.out.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > maxAnswer {
			return nil, fmt.Errorf("an answer over %d bytes", maxAnswer)
		}
		if !more {
			return line, nil
		}
	}
}

// failed says why the helper stopped answering: with what it wrote to
// stderr, once it has exited (it is killed after a second).
func (p *helper) failed(err error) error {
	select {
	case <-p.exited:
	case <-time.After(time.Second):
		p.kill()
		<-p.exited
	}
	if s := p.stderr.String(); s != "" {
		return fmt.Errorf("%w: %s", err, s)
	}
	return err
}

// kill ends the helper and its process group, and a read of its answer.
func (p *helper) kill() {
	_ = p.in.Close()
	if p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = p.stdout.Close()
}

// tail keeps the last bytes a helper wrote to stderr.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, b...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
