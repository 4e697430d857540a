// Command demo is `make run`: it starts the local control plane, serves a
// git repository made from examples/llm-serving over HTTP, and runs the
// roleout agent on it so a person watches an ordered rollout: the upgrade
// sequence, each wave and its readiness, the history. Then it commits a new
// image for the decode role and shows that only decode rolls, with the
// predicted ReplicaSet next to the one the controller made.
//
//	demo [-dir .cluster] [-roleout bin/roleout] [-check] [-teardown]
//
// By default the cluster and the git server keep running afterwards (make
// cluster-down stops both). -check verifies the outcome and exits non-zero
// when it is wrong; -teardown stops everything at the end. CI runs both.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
)

// options are the demo's flags.
type options struct {
	dir      string // cluster state, git repositories, agent config
	roleout  string // the roleout binary
	examples string // examples/llm-serving
	check    bool
	teardown bool
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve-git" {
		os.Exit(serveGit(os.Args[2:]))
	}
	o := options{}
	flag.StringVar(&o.dir, "dir", ".cluster", "directory for the cluster, the git server and the agent")
	flag.StringVar(&o.roleout, "roleout", "bin/roleout", "the roleout binary")
	flag.StringVar(&o.examples, "examples", "examples/llm-serving", "the example config repository")
	flag.BoolVar(&o.check, "check", false, "verify the outcome; exit 1 when it is wrong")
	flag.BoolVar(&o.teardown, "teardown", false, "stop the cluster and the git server at the end")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// step prints a banner a person can follow.
func step(w *os.File, n, of int, format string, args ...any) {
	fmt.Fprintf(w, "\n\033[1m==> [%d/%d] %s\033[0m\n", n, of, fmt.Sprintf(format, args...))
}

// roleout runs the roleout binary with args, its output going to w.
func roleoutCmd(ctx context.Context, o options, w *os.File, args ...string) error {
	cmd := exec.CommandContext(ctx, o.roleout, args...)
	cmd.Stdout, cmd.Stderr = w, w
	fmt.Fprintf(w, "$ roleout %s\n", joinArgs(args))
	return cmd.Run()
}

func joinArgs(args []string) string {
	out := ""
	for i, a := range args {
		if i > 0 {
			out += " "
		}
		out += a
	}
	return out
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}
