package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/roleout/roleout/agent"
)

// runOptions are the flags of `roleout run`.
type runOptions struct {
	config    string
	once      bool
	logFormat string
	logLevel  string
}

func newRunCommand(global *globalOptions) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run --config agent.yaml",
		Short: "Run the agent: poll the source and roll out every app in upgradeOrder",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if global.output == "json" && !cmd.Flags().Changed("log-format") {
				o.logFormat = "json"
			}
			return runAgent(cmd.Context(), cmd, o)
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "agent configuration file (required)")
	cmd.Flags().BoolVar(&o.once, "once", false, "poll and reconcile once, then exit; non-zero exit if any app failed")
	cmd.Flags().StringVar(&o.logFormat, "log-format", "text", "log format: text, json, or pretty (short lines for a person; default json with --output json)")
	cmd.Flags().StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	_ = cmd.MarkFlagRequired("config")
	return cmd
}

func runAgent(ctx context.Context, cmd *cobra.Command, o *runOptions) error {
	log, err := newLogger(cmd.ErrOrStderr(), o.logFormat, o.logLevel)
	if err != nil {
		return err
	}
	cfg, err := agent.LoadConfig(o.config)
	if err != nil {
		return err
	}
	for _, field := range cfg.NotActedOn() {
		log.WithField("field", field).Warn("configuration field is not acted on by this version yet")
	}
	restCfg, err := clusterConfig(cfg.Kubeconfig)
	if err != nil {
		return err
	}
	restCfg.UserAgent = "roleout/" + version
	a, err := agent.New(cfg, restCfg, log)
	if err != nil {
		return err
	}
	if o.once {
		return a.RunOnce(ctx)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.WithField("apps", len(cfg.Apps)).Info("agent started")
	return a.Run(ctx)
}

// clusterConfig returns the cluster to apply to: the kubeconfig file
// named in the agent config, else $KUBECONFIG, else the in-cluster
// configuration.
func clusterConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		kubeconfig = os.Getenv("KUBECONFIG")
	}
	if kubeconfig != "" {
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
			&clientcmd.ClientConfigLoadingRules{Precedence: filepath.SplitList(kubeconfig)}, nil).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("load kubeconfig %s: %w", kubeconfig, err)
		}
		return cfg, nil
	}
	cfg, err := rest.InClusterConfig()
	if errors.Is(err, rest.ErrNotInCluster) {
		return nil, errors.New("no cluster to apply to: set kubeconfig in the agent config or $KUBECONFIG, or run the agent in a cluster")
	}
	return cfg, err
}

// newLogger returns a logrus logger writing to w in format at level.
func newLogger(w io.Writer, format, level string) (*logrus.Logger, error) {
	log := logrus.New()
	log.SetOutput(w)
	switch format {
	case "text":
		log.SetFormatter(&logrus.TextFormatter{FullTimestamp: true})
	case "json":
		log.SetFormatter(&logrus.JSONFormatter{})
	case "pretty":
		log.SetFormatter(prettyFormatter{})
	default:
		return nil, fmt.Errorf("invalid --log-format %q: use text, json or pretty", format)
	}
	lvl, err := logrus.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("invalid --log-level %q: use debug, info, warn or error", level)
	}
	log.SetLevel(lvl)
	return log, nil
}
