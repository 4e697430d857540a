package main

import (
	"github.com/spf13/cobra"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/config"
)

// rollbackOptions are the flags of `roleout rollback`.
type rollbackOptions struct {
	config   string
	app      string
	role     string
	revision int64
}

func newRollbackCommand(global *globalOptions) *cobra.Command {
	o := &rollbackOptions{}
	cmd := &cobra.Command{
		Use:   "rollback --config F --app A --role R --to-revision N",
		Short: "Re-apply a role's recorded revision N as its next revision, through its wave's health gate",
		Long: `rollback re-applies the objects recorded in revision N of a role (see
roleout history) as the role's next revision (number max+1), waits for them
to be healthy, and records it on the status branch. No other role is
touched. The next commit that changes the app brings git's version back; to
keep the rollback, revert the change in git or pause the app.

With --output json it prints one object: app, role, toRevision (the
revision restored), revision and revisionName (the role revision it
became), hash, phase, result, message (when it failed) and statusCommit
(the status-branch commit that records it); its log is JSON on stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(o.config)
			if err != nil {
				return err
			}
			restCfg, err := clusterConfig(cfg.Kubeconfig)
			if err != nil {
				return err
			}
			restCfg.UserAgent = "roleout/" + version
			logFormat := "text"
			if global.output == "json" {
				logFormat = "json"
			}
			log, err := newLogger(cmd.ErrOrStderr(), logFormat, "info")
			if err != nil {
				return err
			}
			a, err := agent.New(cmd.Context(), cfg, restCfg, log)
			if err != nil {
				return err
			}
			res, err := a.Rollback(cmd.Context(), o.app, o.role, o.revision)
			if res != nil && global.output == "json" {
				// A failed rollout is reported too, then exits 2.
				if perr := writeJSON(cmd.OutOrStdout(), res); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "agent configuration file (required)")
	cmd.Flags().StringVar(&o.app, "app", "", "app (required)")
	cmd.Flags().StringVar(&o.role, "role", "", "role (required)")
	cmd.Flags().Int64Var(&o.revision, "to-revision", 0, "revision number to restore (required)")
	for _, f := range []string{"config", "app", "role", "to-revision"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}
