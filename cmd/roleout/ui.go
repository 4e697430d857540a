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
			view, err := newView(ctx, cfg, o.listen, o.refresh, nil, log)
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

// newView returns the web view of cfg's status branch for a listener on
// addr, refreshed every refresh until ctx ends: with ui.auth none only
// on loopback; with kubernetes, readers' tokens are checked on cfg's
// cluster. live, when not nil (roleout run), is the agent: its waves in
// flight are shown, and its status commits read at once.
func newView(ctx context.Context, cfg *config.Config, addr string, refresh time.Duration, live ui.Live, log logrus.FieldLogger) (*ui.Server, error) {
	var auth ui.Authorizer = ui.Open{}
	switch cfg.UI.AuthOrDefault() {
	case config.UIAuthNone:
		if !config.Loopback(addr) {
			return nil, &usageError{fmt.Sprintf("%s is not a loopback address, and ui.auth none serves the view to no one else: listen on 127.0.0.1:PORT (and kubectl port-forward), or set ui.auth: kubernetes", addr)}
		}
	case config.UIAuthKubernetes:
		restCfg, err := clusterConfig(cfg.Kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("ui.auth kubernetes checks tokens on the cluster: %w", err)
		}
		cs, err := kubernetes.NewForConfig(restCfg)
		if err != nil {
			return nil, err
		}
		auth = ui.NewKubernetes(cs)
	}
	store := ui.NewStore(sources.NewStatusBranch(agent.StatusOptions(cfg)), cfg.Status.Branch, cfg.Apps, log)
	if cfg.Sharding.ModeOrDefault() == config.ShardingDynamic {
		owners, err := ownersReader(cfg)
		if err != nil {
			log.WithError(err).Warn("web view: owners not shown (sharding.mode dynamic needs the agent's cluster)")
		} else {
			store.Owners = owners
		}
	}
	store.Refresh(ctx)
	go store.Run(ctx, refresh)
	srv := ui.NewServer(store, auth, log)
	if live != nil {
		srv.Live = live
		go pokeOnChange(ctx, live, store)
	}
	return srv, nil
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
