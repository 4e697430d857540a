package render

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// procKind is what a sandbox process is started as, before it knows
// which render it serves: the binary, and its network namespace. A warm
// spare serves only a render of its own kind.
type procKind struct {
	exe string
	// offline runs the child in a network namespace of its own, where
	// the kernel allows one; requireIsolation refuses to run it without.
	offline, requireIsolation bool
}

// childProc is a started sandbox process: it reads its request on stdin
// and writes its result to sandboxResultFD.
type childProc struct {
	cmd    *exec.Cmd
	tmp    string // its working, home and temporary directory
	stdin  *os.File
	result *os.File
	stderr *tailBuffer
	// ready is closed when a warm process has parsed what it parses
	// ahead (warmUp), or has exited.
	ready chan struct{}
	// exited is closed when the process has exited; waitErr is then
	// cmd.Wait's error.
	exited  chan struct{}
	waitErr error
	// served is set when the process is handed a render (serve): only
	// then may programs it ran be left in its process group.
	served bool
	once   sync.Once
}

// startProc starts a sandbox process of kind in a directory of its own;
// a warm one parses kustomize's OpenAPI schema before it reads its
// request (spare.go).
func startProc(kind procKind, warm bool) (*childProc, error) {
	tmp, err := os.MkdirTemp("", "roleout-render-")
	if err != nil {
		return nil, fmt.Errorf("start the render sandbox: %w", err)
	}
	p := &childProc{tmp: tmp, stderr: &tailBuffer{}, ready: make(chan struct{}), exited: make(chan struct{})}
	// Every descriptor the child gets and the parent keeps is a pipe:
	// the child's ends (theirs) are closed here once it has started, the
	// parent's (mine) too when it does not start.
	var mine, theirs []*os.File
	defer closeFiles(&theirs)
	fail := func(err error) (*childProc, error) {
		closeFiles(&mine)
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("start the render sandbox: %w", err)
	}
	pipe := func(childReads bool) (parent, child *os.File, err error) {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, nil, err
		}
		parent, child = r, w
		if childReads {
			parent, child = w, r
		}
		mine, theirs = append(mine, parent), append(theirs, child)
		return parent, child, nil
	}
	stdinW, stdinR, err := pipe(true)
	if err != nil {
		return fail(err)
	}
	resultR, resultW, err := pipe(false)
	if err != nil {
		return fail(err)
	}
	mode, extra := "1", []*os.File{resultW}
	var readyR *os.File
	if warm {
		var readyW *os.File
		if readyR, readyW, err = pipe(false); err != nil {
			return fail(err)
		}
		mode, extra = warmMode, append(extra, readyW)
	}
	p.cmd, err = startChild(func() *exec.Cmd {
		cmd := exec.Command(kind.exe)
		cmd.Dir = tmp
		cmd.Env = sandboxEnviron(tmp, mode)
		cmd.Stdin = stdinR
		cmd.Stdout, cmd.Stderr = p.stderr, p.stderr
		cmd.ExtraFiles = extra
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		// A program that left the process group (setsid) and kept the
		// output open does not hold the render up past the child's exit.
		cmd.WaitDelay = time.Second
		return cmd
	}, kind.exe, kind.offline, kind.requireIsolation)
	if err != nil {
		return fail(err)
	}
	p.stdin, p.result = stdinW, resultR
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	if warm {
		go func() {
			// One byte when warm; nothing (EOF) when it exited first.
			_, _ = readyR.Read(make([]byte, 1))
			readyR.Close()
			close(p.ready)
		}()
	} else {
		close(p.ready)
	}
	return p, nil
}

// closeFiles closes the files *fs holds.
func closeFiles(fs *[]*os.File) {
	for _, f := range *fs {
		f.Close()
	}
}

// kill kills p's process group (the programs a render ran die with it),
// waits for p to exit, and removes its directory. A spare that exited
// before it served anything ran nothing: its group is not signalled, as
// its id may belong to another process by now. kill may be called more
// than once.
func (p *childProc) kill() {
	p.once.Do(func() {
		select {
		case <-p.exited:
			if p.served {
				_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			}
		default:
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.exited
		}
		p.stdin.Close()
		p.result.Close()
		os.RemoveAll(p.tmp)
	})
}
