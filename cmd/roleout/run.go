package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sharding"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/ui"
)

// runOptions are the flags of `roleout run`.
type runOptions struct {
	config string
	once   bool
	dryRun bool
	shard  string
	// leaderElect, leaseNamespace and leaseName configure leader
	// election between replicas.
	leaderElect               bool
	leaseNamespace, leaseName string
	leaseDuration             time.Duration
	// identity names this replica in Leases (sharding) and the audit log.
	identity  string
	logFormat string
	logLevel  string
	output    string
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
			o.output = global.output
			return runAgent(cmd.Context(), cmd, o)
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "agent configuration file (required)")
	cmd.Flags().BoolVar(&o.once, "once", false, "poll and reconcile once, then exit; non-zero exit if any app failed")
	cmd.Flags().StringVar(&o.shard, "shard", "", "reconcile only shard i/n of the apps (a stable hash of the app name), so n agents split them")
	cmd.Flags().BoolVar(&o.leaderElect, "leader-elect", false, "reconcile only while holding a Lease, so several replicas can run")
	cmd.Flags().StringVar(&o.leaseNamespace, "leader-elect-namespace", "", "namespace of the Lease (default: the pod's namespace, else default)")
	cmd.Flags().StringVar(&o.leaseName, "leader-elect-name", "roleout", "name of the Lease (give each shard its own)")
	cmd.Flags().DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "how long a Lease holds without renewal: a standby replica takes over this long after the leader dies (renewal deadline 2/3 of it); also the member Leases' under sharding.mode dynamic")
	cmd.Flags().StringVar(&o.identity, "identity", "", "this replica's name in Leases (sharding.mode dynamic, leader election) and in `roleout status` (default: the pod name, else the host name)")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "plan and diff (server-side dry run) every app and log what would change; write nothing to the cluster or to git (no status, no previews)")
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
	cfg, err := loadShard(o)
	if err != nil {
		return err
	}
	if o.shard != "" {
		log.WithFields(logrus.Fields{"shard": o.shard, "apps": len(cfg.Apps)}).Info("serving one shard of the apps")
	}
	if addr, _ := cfg.UIListener(); addr != "" && !o.once {
		field := "http.address"
		if cfg.UI.Address != "" {
			field = "ui.address"
		}
		if err := viewListenerError(cfg, field, addr); err != nil {
			return err
		}
	}
	if cfg.Status.SigningKeyFile == "" {
		log.WithField("branch", cfg.Status.Branch).Warn("status branch trusted unverified: set status.signingKeyFile so that the agent signs its status commits and refuses any it did not sign")
	}
	for _, field := range cfg.NotActedOn() {
		log.WithField("field", field).Warn("configuration field is not acted on by this version yet")
	}
	restCfg, err := clusterConfig(cfg.Kubeconfig)
	if err != nil {
		return err
	}
	restCfg.UserAgent = "roleout/" + version
	mode := cfg.Sharding.ModeOrDefault()
	if err := checkShardingFlags(mode, o); err != nil {
		return err
	}
	if (o.leaderElect || mode == config.ShardingDynamic) && o.leaseDuration < 3*time.Second {
		return fmt.Errorf("invalid --leader-elect-lease-duration %s: use 3s or more", o.leaseDuration)
	}
	var le config.LeaderElection
	if o.leaderElect {
		host, _ := os.Hostname()
		id := o.identity
		if id == "" {
			id = fmt.Sprintf("%s-%d", host, os.Getpid())
		}
		le = config.LeaderElection{Namespace: leaseNamespace(o.leaseNamespace), Name: o.leaseName, Identity: id,
			LeaseDuration: o.leaseDuration, RenewDeadline: o.leaseDuration * 2 / 3, RetryPeriod: o.leaseDuration * 2 / 15}
		// The API server's audit log then tells which replica wrote.
		restCfg.UserAgent += " " + le.Identity
	}
	if mode == config.ShardingDynamic {
		restCfg.UserAgent += " " + replicaIdentity(o.identity)
	}
	newAgent := agent.New
	if o.dryRun {
		newAgent = agent.NewDryRun
	}
	a, err := newAgent(ctx, cfg, restCfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	if o.once {
		err := a.RunOnce(ctx)
		// What the forge was told goes out before the process does, or
		// after a while it is given up (a forge down blocks no run).
		flush, cancel := context.WithTimeout(ctx, onceFlush)
		if ferr := a.Flush(flush); ferr != nil {
			log.WithError(ferr).Warn("not everything was posted to the forge")
		}
		cancel()
		if perr := printRunSummary(cmd.OutOrStdout(), a.Results(), o.output); perr != nil && err == nil {
			err = perr
		}
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	view, err := serveHTTP(ctx, log, cfg, restCfg, a)
	if err != nil {
		return err
	}
	go reloadOnChange(ctx, log, o, a, view)
	log.WithField("apps", len(cfg.Apps)).Info("agent started")
	switch {
	case o.leaderElect:
		return a.RunAsLeader(ctx, restCfg, le)
	case mode == config.ShardingDynamic:
		return a.RunSharded(ctx, restCfg, sharding.Options{Identity: replicaIdentity(o.identity),
			LeaseDuration: o.leaseDuration, RenewDeadline: o.leaseDuration * 2 / 3, RetryPeriod: o.leaseDuration * 2 / 15})
	}
	return a.Run(ctx)
}

// checkShardingFlags refuses flags that do not go with the sharding
// mode: dynamic sharding assigns the apps itself and keeps one replica
// per app, so it takes no --shard, no --leader-elect and no --once (a
// one-off run would reconcile apps another replica holds; --dry-run
// writes nothing and is allowed); static sharding needs --shard.
func checkShardingFlags(mode string, o *runOptions) error {
	switch {
	case mode == config.ShardingDynamic && o.shard != "":
		return errors.New("--shard does not go with sharding.mode dynamic, which spreads the apps by Leases: drop --shard, or set sharding.mode static")
	case mode == config.ShardingDynamic && o.leaderElect:
		return errors.New("--leader-elect does not go with sharding.mode dynamic: every replica works, each on its own apps; drop --leader-elect")
	case mode == config.ShardingDynamic && o.once && !o.dryRun:
		return errors.New("run --once does not go with sharding.mode dynamic: it would reconcile apps that a running replica holds; use run --once --dry-run, or roleout reconcile")
	case mode == config.ShardingStatic && o.shard == "":
		return errors.New("sharding.mode static needs --shard i/n on each replica")
	}
	return nil
}

// replicaIdentity is the flag's identity, else the pod name (its host
// name), else the host name.
func replicaIdentity(flag string) string {
	if flag != "" {
		return flag
	}
	if pod := os.Getenv("POD_NAME"); pod != "" {
		return pod
	}
	host, _ := os.Hostname()
	return host
}

// leaseNamespace is the flag's namespace, else the pod's (from its service
// account), else default.
func leaseNamespace(flag string) string {
	if flag != "" {
		return flag
	}
	if ns, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		return strings.TrimSpace(string(ns))
	}
	return "default"
}

// serveHTTP serves the agent's endpoints on http.address until ctx
// ends, and the web view at / there or on ui.address (config.UIListener);
// it returns the view's store (nil when no view is served), which a
// reload hands the new apps. With ui.tlsCertFile the view's listener
// serves HTTPS: when the view shares http.address, /healthz, /readyz,
// /metrics and /hook are served over HTTPS too.
func serveHTTP(ctx context.Context, log *logrus.Logger, cfg *config.Config, restCfg *rest.Config, a *agent.Agent) (*ui.Store, error) {
	uiAddr, why := cfg.UIListener()
	var view http.Handler
	var store *ui.Store
	var viewTLSCfg *tls.Config
	if uiAddr != "" {
		kube, err := kubernetes.NewForConfig(restCfg)
		if err != nil {
			return nil, err
		}
		v, st, err := newView(ctx, cfg, viewOptions{Addr: uiAddr, Refresh: uiRefresh, Anchor: kube, Live: a, Queue: a}, log)
		if err != nil {
			return nil, err
		}
		view, store = boundStreams(v), st
		a.OnAppsChanged(st.SetApps) // apps appGenerators make or remove
		if viewTLSCfg, err = viewTLS(ctx, cfg, log); err != nil {
			return nil, err
		}
	} else if cfg.UI.On() {
		log.WithField("reason", why).Warn("the web view is not served")
	}
	if cfg.HTTP.Address != "-" {
		var secret []byte
		if cfg.HTTP.HookSecretFile != "" {
			data, err := os.ReadFile(cfg.HTTP.HookSecretFile)
			if err != nil {
				return nil, fmt.Errorf("read http.hookSecretFile: %w", err)
			}
			secret = []byte(strings.TrimSpace(string(data)))
		}
		var h http.Handler = a.Handler(secret)
		var tlsCfg *tls.Config // the view's, when it shares the listener
		if view != nil && uiAddr == cfg.HTTP.Address {
			h, tlsCfg = withView(h, view), viewTLSCfg
		}
		at, err := listenAndServe(ctx, "http.address", cfg.HTTP.Address, h, tlsCfg)
		if err != nil {
			return nil, err
		}
		log.WithFields(logrus.Fields{"address": at, "hook": len(secret) > 0, "ui": uiAddr == cfg.HTTP.Address, "tls": tlsCfg != nil}).Info("serving /healthz, /readyz, /metrics")
	}
	if view != nil && uiAddr != cfg.HTTP.Address {
		at, err := listenAndServe(ctx, "ui.address", uiAddr, view, viewTLSCfg)
		if err != nil {
			return nil, err
		}
		log.WithFields(logrus.Fields{"address": at, "tls": viewTLSCfg != nil}).Info("serving the web view")
	}
	return store, nil
}

// onceFlush bounds how long roleout run --once waits for its posts to the
// forge.
const onceFlush = 30 * time.Second

// uiRefresh is how often roleout run's web view looks for a new status
// branch head (one ref listing when nothing moved).
const uiRefresh = 5 * time.Second

// withView serves the agent's endpoints on their paths and the web view
// on every other.
func withView(agentEndpoints, view http.Handler) http.Handler {
	mux := http.NewServeMux()
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/hook"} {
		mux.Handle(p, agentEndpoints)
	}
	mux.Handle("/", view)
	return mux
}

// printRunSummary prints, after run --once, one line per role of every
// app: what the reconcile did and the revision it left; with --output json,
// the apps' statuses.
func printRunSummary(w io.Writer, results []*status.App, output string) error {
	if output == "json" {
		return writeJSON(w, results)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := &printer{w: tw}
	p.f("APP\tPHASE\tROLE\tORDER\tREV\tRESULT\tREVISION\n")
	for _, st := range results {
		if len(st.Roles) == 0 {
			p.f("%s\t%s\t\t\t\t\t%s\n", st.App, st.Phase, shortRevision(st.SourceRevision))
		}
		for _, r := range st.Roles {
			p.f("%s\t%s\t%s\t%d\t%d\t%s\t%s\n", st.App, st.Phase, r.Name, r.UpgradeOrder, r.RevisionNumber, r.Result, shortRevision(st.SourceRevision))
		}
	}
	if p.err != nil {
		return p.err
	}
	return tw.Flush()
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
