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
	// the child's ends are closed here once it has started.
	var theirs []*os.File
	pipe := func() (r, w *os.File) {
		if err == nil {
			r, w, err = os.Pipe()
		}
		return r, w
	}
	stdinR, stdinW := pipe()
	resultR, resultW := pipe()
	theirs = append(theirs, stdinR, resultW)
	var readyR, readyW *os.File
	if warm {
		readyR, readyW = pipe()
		theirs = append(theirs, readyW)
	}
	defer func() {
		for _, f := range theirs {
			if f != nil {
				f.Close()
			}
		}
	}()
	if err != nil {
		for _, f := range []*os.File{stdinW, resultR, readyR} {
			if f != nil {
				f.Close()
			}
		}
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("start the render sandbox: %w", err)
	}
	mode := "1"
	if warm {
		mode = warmMode
	}
	p.cmd, err = startChild(func() *exec.Cmd {
		cmd := exec.Command(kind.exe)
		cmd.Dir = tmp
		cmd.Env = sandboxEnviron(tmp, mode)
		cmd.Stdin = stdinR
		cmd.Stdout, cmd.Stderr = p.stderr, p.stderr
		cmd.ExtraFiles = []*os.File{resultW}
		if warm {
			cmd.ExtraFiles = append(cmd.ExtraFiles, readyW)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		// A program that left the process group (setsid) and kept the
		// output open does not hold the render up past the child's exit.
		cmd.WaitDelay = time.Second
		return cmd
	}, kind.exe, kind.offline, kind.requireIsolation)
	if err != nil {
		stdinW.Close()
		resultR.Close()
		if readyR != nil {
			readyR.Close()
		}
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("start the render sandbox: %w", err)
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
