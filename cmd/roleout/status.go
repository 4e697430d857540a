package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sharding"
	"github.com/roleout/roleout/status"
)

// statusOptions are the flags of `roleout status`.
type statusOptions struct {
	config string
	app    string
}

func newStatusCommand(global *globalOptions) *cobra.Command {
	o := &statusOptions{}
	cmd := &cobra.Command{
		Use:   "status --config F [--app A]",
		Short: "Show each app's phase, revision and drift not healed, from the status branch, without a cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(o.config)
			if err != nil {
				return err
			}
			reps, err := agent.Statuses(cmd.Context(), cfg, o.app)
			if err != nil {
				return err
			}
			if err := addOwners(cmd.Context(), cfg, reps); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: owners not shown (sharding.mode dynamic): %v\n", err)
			}
			if global.output == "json" {
				return writeJSON(cmd.OutOrStdout(), reps)
			}
			return printStatuses(cmd.OutOrStdout(), reps)
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "agent configuration file (required)")
	cmd.Flags().StringVar(&o.app, "app", "", "show only this app")
	_ = cmd.MarkFlagRequired("config")
	return cmd
}

// printStatuses prints one line per app, then its drift and message.
func printStatuses(w io.Writer, reps []status.Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	sharded := slices.ContainsFunc(reps, func(r status.Report) bool { return r.Owner != "" || r.Phase == status.PhaseUnowned })
	if sharded {
		fmt.Fprintln(tw, "APP\tPHASE\tREVISION\tDRIFT\tOWNER")
	} else {
		fmt.Fprintln(tw, "APP\tPHASE\tREVISION\tDRIFT")
	}
	for _, r := range reps {
		rev := r.SourceRevision
		if rev == "" {
			rev = "-"
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%d", r.App, r.Phase, rev, len(r.Drift))
		if sharded {
			owner := r.Owner
			if owner == "" {
				owner = "-"
			}
			line += "\t" + owner
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range reps {
		if r.StatusBranch != nil {
			fmt.Fprintf(w, "%s: the status branch head was refused (%s); shown from an older commit\n", r.App, r.StatusBranch.Message)
		}
		for _, d := range r.Drift {
			fmt.Fprintf(w, "%s: drift since %s: %s\n", r.App, d.Since.UTC().Format("2006-01-02T15:04:05Z"), d)
		}
		if r.Phase == status.PhaseUnowned {
			since := "since an unknown time"
			if r.UnownedSince != nil {
				since = "since " + r.UnownedSince.UTC().Format("2006-01-02T15:04:05Z")
			}
			fmt.Fprintf(w, "%s: no live replica holds it (%s); its status says %s\n", r.App, since, r.RecordedPhase)
		}
		if r.Message != "" && len(r.Drift) == 0 {
			fmt.Fprintf(w, "%s: %s\n", r.App, r.Message)
		}
	}
	return nil
}

// addOwners sets, under sharding.mode dynamic, each report's owner from
// the Leases in the agent's namespace on its cluster (one read, this
// process's clock), and marks the apps that no live replica holds
// Unowned.
func addOwners(ctx context.Context, cfg *config.Config, reps []status.Report) error {
	if cfg.Sharding.ModeOrDefault() != config.ShardingDynamic {
		return nil
	}
	owners, err := ownersReader(cfg)
	if err != nil {
		return err
	}
	return owners(ctx, reps)
}

// ownersReader returns what addOwners does once a client is made: the
// web view reads the owners at every refresh with one client.
func ownersReader(cfg *config.Config) (func(context.Context, []status.Report) error, error) {
	restCfg, err := clusterConfig(cfg.Kubeconfig)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return nil, err
	}
	leases := cs.CoordinationV1().Leases(cfg.Status.ClusterRevisions.AgentNamespace())
	return func(ctx context.Context, reps []status.Report) error {
		names := make([]string, len(reps))
		for i, r := range reps {
			names[i] = r.App
		}
		owners, err := sharding.Owners(ctx, leases, cfg.Sharding.Name, names, time.Now())
		if err != nil {
			return fmt.Errorf("read the owners' Leases: %w", err)
		}
		for i := range reps {
			o := owners[reps[i].App]
			reps[i].Owner = o.Owner
			if o.Owner == "" {
				reps[i].Unowned(o.UnownedSince)
			}
		}
		return nil
	}, nil
}
