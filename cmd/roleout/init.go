package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/agent/starter"
)

var _ starter.Inspector = (*agent.Inspector)(nil)

// initOptions are the flags of `roleout init`.
type initOptions struct {
	write string
	force bool
}

// initReport is what `roleout init --output json` prints.
type initReport struct {
	Config            string         `json:"config"`
	Source            starter.Source `json:"source"`
	Apps              []starter.App  `json:"apps"`
	Untranslated      []string       `json:"untranslated"`
	RolesCommentedOut bool           `json:"rolesCommentedOut"`
	Warnings          []string       `json:"warnings,omitempty"`
	Written           string         `json:"written,omitempty"`
}

func newInitCommand(global *globalOptions) *cobra.Command {
	o := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init [REPO]",
		Short: "Write a starter agent config from a repository's layout and objects",
		Long: `Write a starter agent config from a repository's layout and objects.

REPO is a local directory (default ".") or a git URL (http://, https://,
ssh://, user@host:path or file://), cloned shallowly without credentials.
The config has:
  source  the URL (for a directory: its git remote origin, else a
          placeholder to fill in) and the checked-out (or default) branch;
  apps    one per kustomize overlay: a kustomization that no other
          kustomization of the repository references, or one in an
          overlays/ directory, or one that names a namespace and builds
          on others (an environment another one patches), named after
          its directory ("overlays/prod" → "prod"), with its namespace;
  roles   for an overlay made of several bases, one role per base whose
          objects go into waves (not a base of CRDs or cluster RBAC alone).

Each app is rendered as the agent renders it, and proposed from its
objects: allowedKinds (exactly the kinds it renders) when it renders a
cluster-scoped kind, allowedNamespaces when it writes outside its
namespace, dependsOn for the app holding the CRDs of its custom
resources, and needs: what stands between the app and a plan offline (a
kind only a cluster defines, a remote base, a render that fails).

` + starter.Heuristic + `

These are proposals to review. init plans every app as written: an app
with no needs plans offline. The config loads as written (roleout's
strict parser checks it before it is printed). It goes to stdout, or with
--write to a file (never overwritten without --force); warnings and the
next steps go to stderr.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			repo := "."
			if len(args) == 1 {
				repo = args[0]
			}
			// Interrupted, the clone's temporary directory is still removed.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			res, err := starter.Generate(ctx, repo, starter.Options{Inspector: agent.NewInspector()})
			if err != nil {
				return err
			}
			if o.write != "" {
				if err := writeNew(o.write, res.Config, o.force); err != nil {
					return err
				}
			}
			stdout := cmd.OutOrStdout()
			if global.output == "json" {
				err = writeJSON(stdout, initReport{Config: string(res.Config), Source: res.Source, Apps: res.Apps, Untranslated: res.Untranslated,
					RolesCommentedOut: res.RolesCommentedOut, Warnings: res.Warnings, Written: o.write})
			} else if o.write == "" {
				_, err = stdout.Write(res.Config)
			}
			if err != nil {
				return err
			}
			printNextSteps(cmd.ErrOrStderr(), res, o.write)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.write, "write", "", "write the config to this file instead of stdout")
	cmd.Flags().BoolVar(&o.force, "force", false, "with --write, overwrite the file if it exists")
	return cmd
}

// writeNew writes data to path, refusing to replace an existing file
// unless force.
func writeNew(path string, data []byte, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists: roleout init does not overwrite it without --force", path)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printNextSteps tells the user, on stderr, what was guessed and what to
// run next.
func printNextSteps(w io.Writer, res *starter.Result, written string) {
	p := &printer{w: w}
	for _, warn := range res.Warnings {
		p.f("roleout init: warning: %s\n", warn)
	}
	var names []string
	guessed := 0
	for _, a := range res.Apps {
		names = append(names, a.Name)
		if len(a.Roles) > 0 {
			guessed++
		}
	}
	file := written
	if file == "" {
		file = "agent.yaml"
	}
	if written != "" {
		p.f("Wrote %s: ", written)
	}
	p.f("%d app(s) (%s), roles proposed for %d; they are proposals: review them.\n", len(res.Apps), strings.Join(names, ", "), guessed)
	p.f("Next steps:\n")
	step := 1
	if written == "" {
		p.f("  %d. save the config: roleout init --write %s\n", step, file)
		step++
	}
	if res.Source.Placeholder || res.Source.Note != "" {
		p.f("  %d. in %s, %s\n", step, file, res.Source.Note)
		step++
	}
	if res.RolesCommentedOut {
		p.f("  %d. annotate each base's objects with roleout.dev/role and uncomment the roles (see the comment at the top of %s)\n", step, file)
		step++
	}
	first, waiting := res.Apps[0].Name, 0
	for i := len(res.Apps) - 1; i >= 0; i-- {
		if len(res.Apps[i].Needs) == 0 {
			first = res.Apps[i].Name
		} else {
			waiting++
		}
	}
	if waiting > 0 {
		p.f("  %d. for the %d app(s) whose comments list needs, meet them (or drop the app): until then they do not plan offline\n", step, waiting)
		step++
	}
	p.f("  %d. roleout plan --config %s --app %s   # the waves, from git, without a cluster\n", step, file, first)
	p.f("  %d. roleout diff --config %s --app %s   # against the cluster, writing nothing\n", step+1, file, first)
	p.f("  %d. roleout run --config %s --once\n", step+2, file)
}
