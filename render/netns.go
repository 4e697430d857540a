package render

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// Every render runs in a PID namespace of its own (isolatedAttrs), and a
// render that may reach no host (render.remoteHosts empty: every
// preview, and most apps) in a network namespace of its own too, where
// not even loopback is up: whatever it runs (an exec function, helm, git)
// reaches no network, whatever Go code does or does not gate. As root
// that takes CLONE_NEWNET; otherwise a user namespace as well, where the
// kernel allows unprivileged ones.
//
// Whether the kernel allows it is probed once per process (isolation),
// by starting the binary itself in a namespace as probeMode; the agent
// logs the answer and exports it in /metrics and /readyz. Where it does
// not, a render that requires isolation (Options.RequireNetworkIsolation)
// is refused, and any other runs without a namespace, relying on the
// fetch gate alone. Where it does, a child that cannot get its namespace
// (a namespace limit reached, say) is an error: never a silent fallback.

// probeMode is the sandboxEnv value of the isolation probe: the child
// exits at once.
const probeMode = "probe-netns"

// isolationProbe is the answer of the probe, once run.
var isolationProbe struct {
	once sync.Once
	err  error // why the kernel refused a namespace; nil: isolated
}

// NetworkIsolation probes, once per process, whether renders that may
// reach no host can run in a network namespace of their own, and returns
// why not (nil when they can). exe is the binary to probe with; "" is
// the sandbox's (sandboxExecutable).
func NetworkIsolation(exe string) error {
	isolationProbe.once.Do(func() {
		exe, err := sandboxExecutable(exe)
		if err != nil {
			isolationProbe.err = err
			return
		}
		cmd := exec.Command(exe)
		cmd.Env = []string{sandboxEnv + "=" + probeMode}
		cmd.SysProcAttr = isolatedAttrs(&syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}, true)
		if err := cmd.Run(); err != nil {
			isolationProbe.err = fmt.Errorf("the kernel refused a network namespace (%w): run the agent as root, or where unprivileged user namespaces are allowed", err)
		}
	})
	return isolationProbe.err
}

// NetworkIsolated reports whether renders that may reach no host run in
// a network namespace of their own (NetworkIsolation, probed with the
// running binary).
func NetworkIsolated() bool { return NetworkIsolation("") == nil }

// isolatedAttrs returns attrs with a new PID namespace and, with
// network set, a new network namespace (and, not as root, a user
// namespace mapping the caller's ids). In a PID namespace of its own the
// child is its init: when it exits the kernel kills every process left in
// it, so nothing a render ran (a program that called setsid) outlives it.
func isolatedAttrs(attrs *syscall.SysProcAttr, network bool) *syscall.SysProcAttr {
	a := *attrs
	a.Cloneflags |= syscall.CLONE_NEWPID
	if network {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	if uid, gid := os.Geteuid(), os.Getegid(); uid != 0 {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	}
	return &a
}

// ErrNoIsolation refuses a render that requires network isolation where
// the kernel allows none.
var ErrNoIsolation = errors.New("this render requires network isolation (render.requireNetworkIsolation; on by default for previews), which this machine does not allow")

// startChild starts the command newCmd makes in a PID namespace of its
// own, and a network namespace of its own when isolate is set, where the
// kernel allows them (exe is the binary the probe runs). Without them
// where require is set, it starts nothing.
func startChild(newCmd func() *exec.Cmd, exe string, isolate, require bool) (*exec.Cmd, error) {
	cmd := newCmd()
	err := NetworkIsolation(exe)
	switch {
	case err == nil:
		cmd.SysProcAttr = isolatedAttrs(cmd.SysProcAttr, isolate)
	case isolate && require:
		return nil, fmt.Errorf("%w: %v", ErrNoIsolation, err)
	}
	return cmd, cmd.Start()
}
