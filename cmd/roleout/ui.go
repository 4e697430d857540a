package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/ui"
)

// uiOptions are the flags of `roleout ui`.
type uiOptions struct {
	config  string
	listen  string
	refresh time.Duration
}

func newUICommand(*globalOptions) *cobra.Command {
	o := &uiOptions{}
	cmd := &cobra.Command{
		Use:   "ui --config F [--listen 127.0.0.1:8090]",
		Short: "Serve the read-only web view from the status branch alone, without a cluster (unless ui.auth is kubernetes)",
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
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			view, _, err := newView(ctx, cfg, viewOptions{Addr: o.listen, Refresh: o.refresh, Status: agent.StatusOptions(cfg)}, log)
			if err != nil {
				return err
			}
			l, err := net.Listen("tcp", o.listen)
			if err != nil {
				return fmt.Errorf("listen on --listen %s: %w", o.listen, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "web view of %d apps at http://%s/ (status branch %s)\n", len(cfg.Apps), l.Addr(), cfg.Status.Branch)
			return serveUntil(ctx, l, view)
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "agent configuration file (required)")
	cmd.Flags().StringVar(&o.listen, "listen", "127.0.0.1:8090", "address to serve the view on (loopback unless ui.auth is kubernetes)")
	cmd.Flags().DurationVar(&o.refresh, "refresh", 5*time.Second, "how often to look for a new status branch head")
	_ = cmd.MarkFlagRequired("config")
	return cmd
}

// viewOptions say how a web view is served.
type viewOptions struct {
	// Addr is the listener's address (ui.auth none: loopback only).
	Addr string
	// Refresh is how often the store looks for a new status branch head.
	Refresh time.Duration
	// Status is the status branch as the view reads it (roleout run:
	// anchored as the agent reads it).
	Status sources.StatusOptions
	// Live, when not nil (roleout run), is the agent: its waves in flight
	// are shown, and its status commits read at once. The first read of
	// the branch then happens in the background, so a slow git server
	// does not hold the agent's /healthz.
	Live ui.Live
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
// with ui.auth none only on a loopback address; with kubernetes,
// readers' tokens are checked on cfg's cluster.
func newView(ctx context.Context, cfg *config.Config, o viewOptions, log logrus.FieldLogger) (*ui.Server, *ui.Store, error) {
	var auth ui.Authorizer = ui.Open{}
	switch cfg.UI.AuthOrDefault() {
	case config.UIAuthNone:
		if !config.Loopback(o.Addr) {
			return nil, nil, &usageError{fmt.Sprintf("%s is not a loopback address, and ui.auth none serves the view to no one else: listen on 127.0.0.1:PORT (and kubectl port-forward), or set ui.auth: kubernetes", o.Addr)}
		}
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
	if o.Status.Limits.MaxBytes <= 0 || o.Status.Limits.MaxBytes > viewFolderBytes {
		o.Status.Limits.MaxBytes = viewFolderBytes // it holds every app's files at once
	}
	branch := sources.NewStatusBranch(o.Status)
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
	return srv, store, nil
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

// serveUntil serves h on l until ctx ends. Requests' contexts end with
// ctx, so long ones (the web view's event streams) do not hold the
// shutdown.
func serveUntil(ctx context.Context, l net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
