package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/status"
)

// rollbackOptions are the flags of `roleout rollback`.
type rollbackOptions struct {
	config   string
	app      string
	role     string
	revision int64
	wait     bool
	timeout  time.Duration
	// pickup is how long --wait waits for an agent to take the request
	// up (record it Pending or carry it out) before it says nobody did.
	pickup time.Duration
}

func newRollbackCommand(global *globalOptions) *cobra.Command {
	o := &rollbackOptions{}
	cmd := &cobra.Command{
		Use:   "rollback --config F --app A --role R --to-revision N",
		Short: "Ask the agent to put a role back at its recorded revision N, through the app's gates, and hold it there",
		Long: `rollback asks the agent that serves the app to re-apply the objects recorded
in revision N of a role (see roleout history) as the role's next revision
(number max+1). The request goes in the ConfigMap roleout-control, in the
agent's namespace, like suspend and resume; the agent carries it out as a
rollout of the app: not while the app is suspended, paused or outside its
windows, in its wave, through the health gate, with prune and records as
any rollout. The app's phase is then RolledBack: the role is held at that
revision until a commit changes the role in git or roleout resume ends
the hold (a suspended app's first resume lifts the suspension, the next
one the hold).

The request is checked first (the revision exists, holds no masked
Secret, and matches the agent's record in the cluster). Then the command
waits (--wait, up to --timeout) for the agent to record the outcome on the
status branch. With no agent running, roleout run --once carries the
request out. A newer request replaces an older one.

With --output json it prints one object: app, role, toRevision (the
revision restored), revision and revisionName (the role revision it
became), hash, state (Held, Failed, Refused, Pending), phase (the app's),
result (the role's), message and statusCommit (the status-branch commit
the outcome was read from); its log is JSON on stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRollback(cmd, global, o)
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "agent configuration file (required)")
	cmd.Flags().StringVar(&o.app, "app", "", "app (required)")
	cmd.Flags().StringVar(&o.role, "role", "", "role (required)")
	cmd.Flags().Int64Var(&o.revision, "to-revision", 0, "revision number to restore (required)")
	cmd.Flags().BoolVar(&o.wait, "wait", true, "wait for the agent to carry the request out and print the outcome")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 10*time.Minute, "how long --wait waits; the request stays when it runs out")
	cmd.Flags().DurationVar(&o.pickup, "pickup-timeout", 2*time.Minute, "how long --wait waits for an agent to take the request up before it stops, saying that none did; the request stays")
	for _, f := range []string{"config", "app", "role", "to-revision"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

func runRollback(cmd *cobra.Command, global *globalOptions, o *rollbackOptions) error {
	ctx := cmd.Context()
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
	a, err := agent.New(ctx, cfg, restCfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.CheckRollback(ctx, o.app, o.role, o.revision); err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return err
	}
	ns := control.Namespace(cfg)
	c, err := control.RequestRollback(ctx, kube, ns, o.app, o.role, o.revision, whoAmI(ctx, kube), time.Now())
	if err != nil {
		return err
	}
	req := c.Rollback
	log.WithFields(logrus.Fields{"app": o.app, "role": o.role, "toRevision": o.revision, "requestedAt": req.RequestedAt}).
		Infof("rollback recorded in ConfigMap %s/%s: %s", ns, control.ConfigMapName, carrier(ctx, cfg, o.app))
	res := &status.RollbackResult{App: o.app, Role: o.role, ToRevision: o.revision, State: status.RollbackPending}
	if o.wait {
		res, err = waitRollback(ctx, log, a, o, req.RequestedAt)
	}
	if res != nil {
		if perr := printRollback(cmd, global, res); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}

// waitRollback reads the status branch until the agent has recorded an
// outcome of the request made at requestedAt other than Pending, or
// o.timeout runs out; an outcome other than Held is an error.
func waitRollback(ctx context.Context, log logrus.FieldLogger, a *agent.Agent, o *rollbackOptions, requestedAt string) (*status.RollbackResult, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	said := ""
	start, picked, told := time.Now(), false, time.Now()
	for {
		res, err := a.RollbackOutcome(ctx, o.app, requestedAt)
		picked = picked || res != nil
		switch {
		case err != nil && ctx.Err() == nil:
			return nil, err
		case res != nil && res.State == status.RollbackHeld:
			return res, nil
		case res != nil && res.State != status.RollbackPending:
			return res, fmt.Errorf("rollback of %s to revision %d: %s: %s", o.role, o.revision, res.State, res.Message)
		case res != nil && res.Message != said:
			said, told = res.Message, time.Now()
			log.Info("taken up by the agent, waiting: " + said)
		case time.Since(told) >= 15*time.Second:
			told = time.Now()
			what := "no agent has taken the request up yet"
			if picked {
				what = "the agent is carrying it out: " + said
			}
			log.Infof("still waiting after %s: %s", time.Since(start).Round(time.Second), what)
		}
		if !picked && time.Since(start) >= min(o.pickup, o.timeout) {
			return nil, fmt.Errorf("rollback requested, but no agent took the request up within %s: no roleout run serving app %s has read it "+
				"(is one running for this config and cluster? roleout status --config shows the owner; roleout run --once carries it out too); "+
				"the request stays in the ConfigMap %s and is carried out when an agent runs", min(o.pickup, o.timeout), o.app, control.ConfigMapName)
		}
		select {
		case <-ctx.Done():
			why := "no agent has recorded it yet: is roleout run running for this config? roleout run --once carries it out too"
			if said != "" {
				why = said
			}
			return nil, errors.New("rollback requested, not carried out within " + o.timeout.String() + " (" + why + "); the request stays, and the agent carries it out when it can")
		case <-time.After(2 * time.Second):
		}
	}
}

// carrier says who will carry out a request for app: under sharding.mode
// dynamic, the replica that holds the app's Lease, or that none does;
// otherwise the agent serving the config, at its next poll.
func carrier(ctx context.Context, cfg *config.Config, app string) string {
	if cfg.Sharding.ModeOrDefault() != config.ShardingDynamic {
		return "the agent serving this config (roleout run; under --leader-elect, the replica holding the Lease) carries it out at once, or at its next poll"
	}
	rep := []status.Report{{App: app}}
	if err := addOwners(ctx, cfg, rep); err != nil {
		return "the replica holding the app's Lease carries it out (owners unknown: " + err.Error() + ")"
	}
	if rep[0].Owner == "" || rep[0].Phase == status.PhaseUnowned {
		return "no live replica holds app " + app + " now (sharding.mode dynamic): it is carried out once one does"
	}
	return "replica " + rep[0].Owner + " holds app " + app + " and carries it out"
}

// printRollback prints res: JSON, or a line of text.
func printRollback(cmd *cobra.Command, global *globalOptions, res *status.RollbackResult) error {
	if global.output == "json" {
		return writeJSON(cmd.OutOrStdout(), res)
	}
	line := fmt.Sprintf("rollback of role %s of app %s to revision %d: %s", res.Role, res.App, res.ToRevision, res.State)
	if res.RevisionName != "" {
		line += fmt.Sprintf(" (revision %d, %s)", res.RevisionNumber, res.RevisionName)
	}
	if res.Message != "" {
		line += ": " + res.Message
	}
	_, err := fmt.Fprintln(cmd.OutOrStdout(), line)
	return err
}
