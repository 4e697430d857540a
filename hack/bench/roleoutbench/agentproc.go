package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// statusBranch is the agent's default status branch.
const statusBranch = "roleout/status"

// agentProc is a `roleout run` child process (not --once: its watches
// are armed), with its standard output and error in one log file.
type agentProc struct {
	cmd     *exec.Cmd
	logPath string
	logFile *os.File
	done    chan error
}

// startAgent starts `roleout run --config config` with extra environment
// variables env (GODEBUG=gctrace=1, …); name names its log file.
func (e *env) startAgent(ctx context.Context, name, config string, env ...string) (*agentProc, error) {
	return e.startAgentArgs(ctx, name, []string{"run", "--config", config, "--log-level", "info"}, env...)
}

// startAgentArgs starts roleout with args and extra environment
// variables env; name names its log file.
func (e *env) startAgentArgs(ctx context.Context, name string, args []string, env ...string) (*agentProc, error) {
	p := &agentProc{logPath: filepath.Join(e.work, name+".log"), done: make(chan error, 1)}
	var err error
	if p.logFile, err = os.Create(p.logPath); err != nil {
		return nil, err
	}
	p.cmd = exec.CommandContext(ctx, e.roleoutBin, args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.logFile, p.logFile
	p.cmd.WaitDelay = 30 * time.Second
	if err := p.cmd.Start(); err != nil {
		p.logFile.Close()
		return nil, err
	}
	go func() { p.done <- p.cmd.Wait() }()
	return p, nil
}

// stop sends SIGTERM and waits for the agent to end (it is killed after
// 30 s).
func (p *agentProc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	p.logFile.Close()
}

// log returns the agent's output so far.
func (p *agentProc) log() string {
	data, _ := os.ReadFile(p.logPath)
	return string(data)
}

// waitLog waits until the agent's output holds s at least n times.
func (p *agentProc) waitLog(ctx context.Context, s string, n int, d time.Duration) error {
	for deadline := time.Now().Add(d); ; {
		if strings.Count(p.log(), s) >= n {
			return nil
		}
		if err := p.alive(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the agent did not log %q %d times within %s:\n%s", s, n, d, lastLines(p.log(), 15))
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// alive returns an error when the agent has ended.
func (p *agentProc) alive() error {
	select {
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("the agent ended (%v):\n%s", err, lastLines(p.log(), 15))
	default:
		return nil
	}
}

// procMem is a process's memory from /proc/PID/status, in bytes: its
// resident set (VmRSS), the anonymous part of it (RssAnon: heap, stacks;
// the rest is mostly the pages of the binary, RssFile) and its peak so
// far (VmHWM).
type procMem struct{ rss, anon, file, peak int64 }

// mem returns the agent's memory now.
func (p *agentProc) mem() procMem {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return procMem{}
	}
	var m procMem
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			m.rss = kb * 1024
		case "RssAnon:":
			m.anon = kb * 1024
		case "RssFile:":
			m.file = kb * 1024
		case "VmHWM:":
			m.peak = kb * 1024
		}
	}
	return m
}

// gcLine matches a line of GODEBUG=gctrace=1: its time since the start
// and the heap before, after and live after the collection.
var gcLine = regexp.MustCompile(`(?m)^gc \d+ @([0-9.]+)s .*?(\d+)->(\d+)->(\d+) MB`)

// lastGC returns, from the agent's gctrace lines, the live heap after its
// latest garbage collection in MiB (the runtime's "MB" are 2^20 bytes)
// and when that collection ran (since the process started); ok is false
// without gctrace lines.
func (p *agentProc) lastGC() (liveMiB float64, at time.Duration, ok bool) {
	m := gcLine.FindAllStringSubmatch(p.log(), -1)
	if len(m) == 0 {
		return 0, 0, false
	}
	last := m[len(m)-1]
	s, _ := strconv.ParseFloat(last[1], 64)
	live, _ := strconv.ParseFloat(last[4], 64)
	return live, time.Duration(s * float64(time.Second)), true
}

// readStatus returns app's status.yaml on the status branch of repo.
func readStatus(repo *testgit.Repo, app string) (*status.App, error) {
	data, err := repo.Show(statusBranch, app+"/status.yaml")
	if err != nil {
		return nil, err
	}
	var st status.App
	return &st, yaml.Unmarshal([]byte(data), &st)
}

// readHistory returns app's history.yaml on the status branch of repo.
func readHistory(repo *testgit.Repo, app string) ([]status.Rollout, error) {
	data, err := repo.Show(statusBranch, app+"/history.yaml")
	if err != nil {
		return nil, err
	}
	var recs []status.Rollout
	return recs, yaml.Unmarshal([]byte(data), &recs)
}

// waitSucceeded waits until every app's status says Succeeded at commit
// head of branch main.
func waitSucceeded(ctx context.Context, p *agentProc, repo *testgit.Repo, head string, d time.Duration, apps ...string) error {
	want := "main@sha1:" + head
	deadline := time.Now().Add(d)
	for _, app := range apps {
		for {
			st, err := readStatus(repo, app)
			if err == nil && st.SourceRevision == want && st.Phase == status.PhaseSucceeded {
				break
			}
			if err := p.alive(); err != nil {
				return err
			}
			if time.Now().After(deadline) {
				phase := "no status"
				if st != nil {
					phase = st.Phase + " at " + st.SourceRevision + ": " + st.Message
				}
				return fmt.Errorf("app %s did not succeed at %s within %s (%s):\n%s", app, head, d, phase, lastLines(p.log(), 15))
			}
			if err := sleep(ctx, time.Second); err != nil {
				return err
			}
		}
	}
	return nil
}

// statusHead returns the commit of the status branch of repo, read from
// its loose ref file when there is one (no git process on the hot path of
// a measurement), else with git rev-parse.
func statusHead(repo *testgit.Repo) string {
	if data, err := os.ReadFile(filepath.Join(repo.BarePath(), "refs", "heads", statusBranch)); err == nil {
		return strings.TrimSpace(string(data))
	}
	rev, _ := repo.Rev(statusBranch)
	return rev
}

// waitHealRecorded polls the status branch of repo from commit from on
// until app's history holds a drift record, finished at or after since,
// that healed object; it returns when it saw it.
func waitHealRecorded(ctx context.Context, repo *testgit.Repo, app, object, from string, since time.Time, d time.Duration) (time.Time, error) {
	since = since.Truncate(time.Second)
	last := from
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		if head := statusHead(repo); head != last {
			seen := time.Now()
			last = head
			recs, err := readHistory(repo, app)
			if err != nil {
				return time.Time{}, err
			}
			if healRecorded(recs, object, since) {
				return seen, nil
			}
		}
		if err := sleep(ctx, 25*time.Millisecond); err != nil {
			return time.Time{}, err
		}
	}
	return time.Time{}, fmt.Errorf("no healed drift of %s in %s's history within %s", object, app, d)
}

// healRecorded reports whether recs hold a drift record finished at or
// after since that healed object.
func healRecorded(recs []status.Rollout, object string, since time.Time) bool {
	for _, r := range recs {
		if r.Trigger != "drift" || r.Finished.Time.Before(since) {
			continue
		}
		for _, d := range r.Drift {
			if d.Object == object && d.Healed {
				return true
			}
		}
	}
	return false
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// errTimeout is what a watch for a condition returns when it did not hold
// in time.
var errTimeout = errors.New("timed out")
