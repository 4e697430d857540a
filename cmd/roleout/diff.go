package main

import (
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/model"
)

// offlineKeyTimeout bounds diff --offline's attempt to read the mask key
// from the cluster.
const offlineKeyTimeout = 5 * time.Second

// diffOptions are the flags of `roleout diff`.
type diffOptions struct {
	planFlags
	offline    bool
	kubeconfig string
}

func newDiffCommand(global *globalOptions) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff [DIR | --config F --app NAME [--ref REF]] [--offline]",
		Short: "Show what applying would change, by server-side dry run: exit 0 no changes, 1 changes, 2 error",
		Long: `diff renders and plans like plan, then asks the API server to dry-run every
object (nothing is written) and shows a unified diff per object, Secret
values masked, and a summary per role. With --offline it compares with the
last status in git instead and needs no cluster: the prerequisite step by
the hash the status records, each role by its applied revision, and roles
the render adds or removes as such.

Exit codes: 0 no changes, 1 changes, 2 error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := o.run(cmd, args)
			if err != nil {
				return err
			}
			if global.output == "json" {
				err = writeJSON(cmd.OutOrStdout(), rep)
			} else {
				err = printDiff(cmd.OutOrStdout(), rep)
			}
			if err != nil {
				return err
			}
			if rep.Changed || rep.Summary.Changed() {
				return &exitCodeError{code: exitChanges}
			}
			return nil
		},
	}
	o.register(cmd)
	cmd.Flags().BoolVar(&o.offline, "offline", false, "compare with the last status in git (needs --config); no cluster")
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "cluster for a local DIR (default $KUBECONFIG)")
	return cmd
}

func (o *diffOptions) run(cmd *cobra.Command, args []string) (*diff.Report, error) {
	ctx := cmd.Context()
	if o.config != "" {
		if len(args) > 0 {
			return nil, errors.New("give a DIR or --config, not both")
		}
		if o.app == "" {
			return nil, errors.New("--app is required with --config")
		}
		cfg, err := config.Load(o.config)
		if err != nil {
			return nil, err
		}
		opts := agent.DiffOptions{Ref: o.ref, Offline: o.offline}
		kubeconfig := cfg.Kubeconfig
		if o.kubeconfig != "" {
			kubeconfig = o.kubeconfig
		}
		restCfg, err := clusterConfig(kubeconfig)
		if o.offline {
			// No cluster is needed: the key Secret is read when one
			// answers, else the masks use a random key.
			if err != nil {
				restCfg = nil
			} else {
				restCfg.Timeout = offlineKeyTimeout
			}
			if opts.Masker, err = control.ReadMasker(ctx, cfg, restCfg); err != nil {
				return nil, err
			}
			return agent.Diff(ctx, cfg, o.app, opts)
		}
		if err != nil {
			return nil, err
		}
		if opts.Masker, err = control.ReadMasker(ctx, cfg, restCfg); err != nil {
			return nil, err
		}
		restCfg.UserAgent = "roleout/" + version
		opts.Kube = restCfg
		return agent.Diff(ctx, cfg, o.app, opts)
	}
	if o.offline {
		return nil, errors.New("--offline compares with the status in git: use it with --config F --app NAME")
	}
	if len(args) != 1 {
		return nil, errors.New("give a kustomize DIR, or --config F --app NAME")
	}
	dir, err := o.dirOptions(args[0])
	if err != nil {
		return nil, err
	}
	restCfg, err := clusterConfig(o.kubeconfig)
	if err != nil {
		return nil, err
	}
	restCfg.UserAgent = "roleout/" + version
	return agent.DiffDir(ctx, dir, restCfg)
}

// printRestarts lists, per role, the workloads whose pods the change
// restarts or creates, with the identity predicted for the new template.
func printRestarts(p *printer, rep *diff.Report) {
	first := true
	for _, s := range rep.Steps {
		for _, w := range s.Workloads {
			if first {
				p.f("\npods restarted (predicted identities):\n")
				first = false
			}
			ref := w.Kind + "/" + w.Name
			if w.Namespace != "" {
				ref = w.Kind + "/" + w.Namespace + "/" + w.Name
			}
			now := "new"
			if w.Current != nil {
				now = "now " + w.Current.String()
			}
			p.f("  %-20s %s → %s (%s)\n", stepLabel(s.Role), ref, w.Predicted.Describe(w.Unverified), now)
		}
	}
}

func printDiff(w io.Writer, rep *diff.Report) error {
	p := &printer{w: w}
	where := "the cluster (server-side dry run)"
	if rep.Offline {
		where = "the last status in git"
	}
	p.f("diff of app %s at %s against %s\n", rep.App, rep.SourceRevision, where)
	for _, s := range rep.Steps {
		switch s.Change {
		case diff.RoleAdded:
			p.f("%s added: the last status in git does not have it\n", stepLabel(s.Role))
		case diff.RoleRemoved:
			p.f("%s removed: the render no longer has it\n", stepLabel(s.Role))
		}
		if s.Note != "" {
			p.f("%s: %s\n", stepLabel(s.Role), s.Note)
		}
		for _, o := range s.Objects {
			if o.Change == model.NoChange {
				continue
			}
			p.f("%s %s (%s)\n", o.Change, o.Object, stepLabel(s.Role))
			if o.Diff != "" {
				p.f("%s", o.Diff)
			}
		}
	}
	printRestarts(p, rep)
	p.f("\nsummary:\n")
	for _, s := range rep.Steps {
		if len(s.Objects) == 0 && s.Change == "" {
			continue
		}
		label := stepLabel(s.Role)
		if s.Change != "" {
			label += " (" + s.Change + ")"
		}
		c := s.Counts
		p.f("  %-20s %d create, %d update, %d delete, %d unchanged\n", label, c.Create, c.Update, c.Delete, c.Unchanged)
	}
	c := rep.Summary
	p.f("  %-20s %d create, %d update, %d delete, %d unchanged\n", "total", c.Create, c.Update, c.Delete, c.Unchanged)
	if !rep.Changed && !c.Changed() {
		p.f("no changes\n")
	}
	return p.err
}

// stepLabel names a diff step: "role db", "prerequisites" or "prune".
func stepLabel(role string) string {
	switch role {
	case diff.PrerequisitesStep:
		return "prerequisites"
	case diff.PruneStep:
		return "prune"
	}
	return "role " + role
}
