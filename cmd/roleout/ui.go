package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/ui"
)

// uiOptions are the flags of `roleout ui`.
type uiOptions struct {
	config  string
	listen  string
	refresh time.Duration
	// unanchored reads a signed status branch without the agent's
	// anchor (no cluster needed; a replayed branch is shown as it is).
	unanchored bool
}

func newUICommand(*globalOptions) *cobra.Command {
	o := &uiOptions{}
	cmd := &cobra.Command{
		Use:   "ui --config F [--listen 127.0.0.1:8090]",
		Short: "Serve the read-only web view from the status branch, read through the agent's anchor on its cluster when status commits are signed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(o.config)
			if err != nil {
				return err
			}
			if o.refresh < time.Second {
				return &usageError{fmt.Sprintf("invalid --refresh %s: use 1s or more", o.refresh)}
			}
			log, err := newLogger(cmd.ErrOrStderr(), "text", "info")
			if err != nil {
				return err
			}
			if err := viewListenerError(cfg, "--listen", o.listen); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			anchor, err := uiAnchor(ctx, cfg, o.unanchored, log)
			if err != nil {
				return err
			}
			tlsCfg, err := viewTLS(ctx, cfg, log)
			if err != nil {
				return err
			}
			view, _, err := newView(ctx, cfg, viewOptions{Addr: o.listen, Refresh: o.refresh, Anchor: anchor}, log)
			if err != nil {
				return err
			}
			l, err := net.Listen("tcp", o.listen)
			if err != nil {
				return fmt.Errorf("listen on --listen %s: %w", o.listen, err)
			}
			scheme := "http"
			if tlsCfg != nil {
				scheme = "https"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "web view of %d apps at %s://%s/ (status branch %s)\n", len(cfg.Apps), scheme, l.Addr(), cfg.Status.Branch)
			return serveUntil(ctx, l, boundStreams(view), tlsCfg)
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "agent configuration file (required)")
	cmd.Flags().StringVar(&o.listen, "listen", "127.0.0.1:8090", "address to serve the view on (loopback, unless ui.auth is kubernetes and ui.tlsCertFile is set)")
	cmd.Flags().DurationVar(&o.refresh, "refresh", 5*time.Second, "how often to look for a new status branch head")
	cmd.Flags().BoolVar(&o.unanchored, "unanchored", false, "read a signed status branch without the anchor the agent keeps in its cluster (when that cluster cannot be reached): a branch replayed to older signed records is then shown as it is")
	_ = cmd.MarkFlagRequired("config")
	return cmd
}

// viewOptions say how a web view is served.
type viewOptions struct {
	// Addr is the listener's address (ui.auth none: loopback only).
	Addr string
	// Refresh is how often the store looks for a new status branch head.
	Refresh time.Duration
	// Anchor, when not nil, is the agent's cluster, whose status anchor
	// the view reads the branch through, as the agent does (roleout run;
	// roleout ui on a signed branch).
	Anchor kubernetes.Interface
	// Live, when not nil (roleout run), is the agent: its waves in flight
	// are shown, and its status commits read at once. The first read of
	// the branch then happens in the background, so a slow git server
	// does not hold the agent's /healthz.
	Live ui.Live
	// Queue, when not nil (roleout run), is the agent whose pull-request
	// heads waiting for previews the overview lists.
	Queue *agent.Agent
}

// viewFolderBytes bounds what the view reads of one app's folder on the
// status branch: it keeps every app's records in memory, and the branch
// is untrusted. A folder over it is shown as not read.
const viewFolderBytes = 64 << 20

// viewClientQPS and viewClientBurst are the view's own client's rates:
// an overview asks a review per namespace, many at once.
const viewClientQPS, viewClientBurst = 50, 100

// newView returns the web view of cfg's status branch, refreshed until
// ctx ends, and the store it reads (roleout run hands it reloaded apps):
// only where config.UI.ListenerError allows (auth none: loopback;
// auth kubernetes: loopback, or TLS); with kubernetes, readers' tokens
// are checked on cfg's cluster.
func newView(ctx context.Context, cfg *config.Config, o viewOptions, log logrus.FieldLogger) (*ui.Server, *ui.Store, error) {
	if err := viewListenerError(cfg, "the view's address", o.Addr); err != nil {
		return nil, nil, err
	}
	var auth ui.Authorizer = ui.Open{}
	switch cfg.UI.AuthOrDefault() {
	case config.UIAuthKubernetes:
		restCfg, err := clusterConfig(cfg.Kubeconfig)
		if err != nil {
			return nil, nil, fmt.Errorf("ui.auth kubernetes checks tokens on the cluster: %w", err)
		}
		restCfg.QPS, restCfg.Burst = viewClientQPS, viewClientBurst
		cs, err := kubernetes.NewForConfig(restCfg)
		if err != nil {
			return nil, nil, err
		}
		auth = ui.NewKubernetes(cs)
	}
	branch := agent.StatusView(cfg, o.Anchor, viewFolderBytes)
	context.AfterFunc(ctx, branch.Close)
	store := ui.NewStore(branch, cfg.Status.Branch, cfg.Apps, log)
	if cfg.Sharding.ModeOrDefault() == config.ShardingDynamic {
		owners, err := ownersReader(cfg)
		if err != nil {
			log.WithError(err).Warn("web view: owners not shown (sharding.mode dynamic needs the agent's cluster)")
		} else {
			store.Owners = owners
		}
	}
	if o.Live == nil {
		store.Refresh(ctx) // roleout ui: the first page shows the branch
	}
	go store.Run(ctx, o.Refresh)
	srv := ui.NewServer(store, auth, log)
	if o.Live != nil {
		srv.Live = o.Live
		go pokeOnChange(ctx, o.Live, store)
	}
	if o.Queue != nil {
		srv.Queue = waitingPreviews{o.Queue}
	}
	return srv, store, nil
}

// waitingPreviews is the agent's queue of pull-request heads as the web
// view lists it.
type waitingPreviews struct{ a *agent.Agent }

// PreviewsWaiting returns the heads waiting for previews, in order.
func (w waitingPreviews) PreviewsWaiting() []ui.WaitingPreview {
	heads := w.a.PreviewsWaiting()
	out := make([]ui.WaitingPreview, len(heads))
	for i, h := range heads {
		out[i] = ui.WaitingPreview{Ref: h.Ref, Commit: h.Commit}
	}
	return out
}

// pokeOnChange has store read the status branch when live changes (a
// status commit, a wave that takes off or lands), at most every
// pokeEvery: waves move on the page as they are recorded.
func pokeOnChange(ctx context.Context, live ui.Live, store *ui.Store) {
	_, changed := live.Flights()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pokeEvery):
		}
		_, changed = live.Flights() // before the read: a change during it comes round again
		store.Poke()
	}
}

// pokeEvery bounds how often roleout run's view reads the status branch
// while the agent writes it.
const pokeEvery = 500 * time.Millisecond

// uiAnchor is the cluster through whose anchor roleout ui reads the
// status branch, as roleout run does, so a branch replayed to older
// signed records is refused, not shown. The agent anchors a signed branch
// only (status.signingKeyFile), so an unsigned one needs no cluster (nil).
// When the anchor cannot be read, roleout ui exits unless unanchored,
// which reads without it (nil) and warns.
func uiAnchor(ctx context.Context, cfg *config.Config, unanchored bool, log logrus.FieldLogger) (kubernetes.Interface, error) {
	if cfg.Status.SigningKeyFile == "" {
		return nil, nil
	}
	if unanchored {
		log.Warn("--unanchored: the status branch is read without the anchor the agent keeps in its cluster; a branch replayed to older signed records is shown as it is")
		return nil, nil
	}
	ns := cfg.Status.ClusterRevisions.AgentNamespace()
	refuse := func(err error) error {
		return fmt.Errorf("roleout ui reads the signed status branch through the anchor the agent keeps in its cluster (ConfigMap %s/%s), and cannot read it: %w; give roleout ui the agent's cluster (kubeconfig in the config, or $KUBECONFIG) with get on that ConfigMap, or pass --unanchored to read the branch without it", ns, control.StatusAnchorName, err)
	}
	restCfg, err := clusterConfig(cfg.Kubeconfig)
	if err != nil {
		return nil, refuse(err)
	}
	kube, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return nil, refuse(err)
	}
	probe, cancel := context.WithTimeout(ctx, anchorProbe)
	defer cancel()
	if err := agent.ReadAnchor(probe, cfg, kube); err != nil {
		return nil, refuse(err)
	}
	return kube, nil
}

// anchorProbe bounds roleout ui's first read of the status anchor.
const anchorProbe = 15 * time.Second
