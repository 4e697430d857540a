package testcluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// component is one control-plane process: its command, its log file and,
// once started, its process group.
type component struct {
	name    string
	bin     string
	args    []string
	env     []string
	cmd     *exec.Cmd
	logPath string
	logFile *os.File
	exited  chan struct{}
	waitErr error
}

// launcher starts child processes from one goroutine locked to one OS thread
// that lives as long as the cluster. Linux delivers the parent-death signal
// when the thread that forked a child exits, so pinning the fork to a thread
// that outlives the children makes "kill the children when the test binary
// dies" (interrupt, timeout panic, SIGKILL) reliable.
type launcher struct {
	reqs chan launchRequest
}

type launchRequest struct {
	cmd  *exec.Cmd
	done chan error
}

func newLauncher() *launcher {
	l := &launcher{reqs: make(chan launchRequest)}
	go func() {
		runtime.LockOSThread()
		// The goroutine never unlocks: when it returns, its thread exits,
		// which is only done after every child has been stopped.
		for r := range l.reqs {
			r.done <- r.cmd.Start()
		}
	}()
	return l
}

func (l *launcher) start(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	l.reqs <- launchRequest{cmd: cmd, done: done}
	return <-done
}

func (l *launcher) close() { close(l.reqs) }

// startComponent starts bin with args in its own process group, writing
// stdout and stderr to dir/name.log. When detached is false, the process
// is killed if the test binary dies.
func startComponent(l *launcher, dir, name, bin string, args []string, detached bool, env ...string) (*component, error) {
	logPath := dir + "/" + name + ".log"
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create log for %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout = f
	cmd.Stderr = f
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	if detached {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	if err := l.start(cmd); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s (%s): %w", name, bin, err)
	}
	c := &component{name: name, bin: bin, args: args, env: env, cmd: cmd, logPath: logPath, logFile: f, exited: make(chan struct{})}
	go func() {
		c.waitErr = cmd.Wait()
		f.Close()
		close(c.exited)
	}()
	return c, nil
}

// pid returns the component's process ID, which is also its process group ID.
func (c *component) pid() int { return c.cmd.Process.Pid }

// running reports whether the process has not exited yet.
func (c *component) running() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM to the component's process group, waits up to grace
// for it to exit, then kills the group.
func (c *component) stop(grace time.Duration) {
	stopGroup(c.pid(), grace, c.exited)
}

// stopGroup terminates the process group pgid: SIGTERM, then SIGKILL after
// grace. exited, when not nil, is closed once the leader has been reaped.
func stopGroup(pgid int, grace time.Duration, exited <-chan struct{}) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.After(grace)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if exited != nil {
			select {
			case <-exited:
				if !GroupAlive(pgid) {
					return
				}
			default:
			}
		} else if !GroupAlive(pgid) {
			return
		}
		select {
		case <-deadline:
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			if exited != nil {
				<-exited
			}
			waitGroupGone(pgid, 5*time.Second)
			return
		case <-tick.C:
		}
	}
}

// GroupAlive reports whether any process of the process group pgid exists.
func GroupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func waitGroupGone(pgid int, d time.Duration) {
	end := time.Now().Add(d)
	for GroupAlive(pgid) && time.Now().Before(end) {
		time.Sleep(20 * time.Millisecond)
	}
}

// tail returns the last n lines of the component's log.
func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
