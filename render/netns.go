package render

import (
	"errors"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
)

// A render that may reach no host (render.remoteHosts empty: every
// preview, and most apps) runs in a network namespace of its own, where
// not even loopback is up: whatever it runs (an exec function, helm, git)
// reaches no network, whatever Go code does or does not gate. As root
// that takes CLONE_NEWNET; otherwise a user namespace as well, where the
// kernel allows unprivileged ones. Where neither is allowed (a container
// without the capability), the first refusal turns isolation off for the
// process and renders rely on fetchGate alone; NetworkIsolated says which.

// netnsRefused is set when the kernel refused a network namespace once.
var netnsRefused atomic.Bool

// NetworkIsolated reports whether renders that may reach no host run in
// a network namespace of their own (false once the kernel refused one).
func NetworkIsolated() bool { return !netnsRefused.Load() }

// startChild starts the command newCmd makes, in a network namespace of
// its own when isolate is set and the kernel allows it.
func startChild(newCmd func() *exec.Cmd, isolate bool) (*exec.Cmd, error) {
	if isolate && !netnsRefused.Load() {
		cmd := newCmd()
		attrs := *cmd.SysProcAttr
		attrs.Cloneflags |= syscall.CLONE_NEWNET
		if uid, gid := os.Geteuid(), os.Getegid(); uid != 0 {
			attrs.Cloneflags |= syscall.CLONE_NEWUSER
			attrs.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
			attrs.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		}
		cmd.SysProcAttr = &attrs
		err := cmd.Start()
		if err == nil {
			return cmd, nil
		}
		if !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EACCES) {
			return nil, err
		}
		netnsRefused.Store(true)
	}
	cmd := newCmd()
	return cmd, cmd.Start()
}
