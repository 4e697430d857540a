package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes shared by every command (docs/design.md, "The user-facing
// contract").
const (
	exitOK      = 0
	exitChanges = 1 // roleout diff: the live state differs from git
	exitError   = 2
)

// globalOptions are the flags every command takes.
type globalOptions struct {
	output string // text or json
}

func (o *globalOptions) validate() error {
	switch o.output {
	case "text", "json":
		return nil
	}
	return fmt.Errorf("invalid --output %q: use text or json", o.output)
}

// run executes the CLI with args and returns the process exit code.
// Errors go to stderr.
func run(args []string, stdout, stderr io.Writer) int {
	opts := &globalOptions{}
	root := &cobra.Command{
		Use:           "roleout",
		Short:         "GitOps agent that rolls out an application's roles in upgradeOrder",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			return opts.validate()
		},
	}
	root.PersistentFlags().StringVarP(&opts.output, "output", "o", "text", "output format: text or json")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	root.AddCommand(newVersionCommand(opts), newRunCommand(opts), newRenderCommand(opts), newPlanCommand(opts), newDiffCommand(opts), newRollbackCommand(opts), newHistoryCommand(opts), newStatusCommand(opts))
	root.AddCommand(newControlCommands(opts)...)
	root.AddCommand(newInitCommand(opts), newUICommand(opts))
	if err := root.Execute(); err != nil {
		var exit *exitCodeError
		if errors.As(err, &exit) {
			return exit.code
		}
		fmt.Fprintln(stderr, "roleout:", err)
		return exitError
	}
	return exitOK
}

// exitCodeError ends a command with a given exit code and no message, for
// results that are not failures (roleout diff found changes).
type exitCodeError struct{ code int }

func (e *exitCodeError) Error() string { return fmt.Sprintf("exit %d", e.code) }
