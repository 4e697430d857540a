package main

import (
	"bytes"
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/ui"
)

// configCheckInterval is how often roleout run looks at its config file
// for a change (a mounted ConfigMap changes without a signal).
const configCheckInterval = 5 * time.Second

// reloadOnChange reloads the agent's configuration when its file changes
// or on SIGHUP, until ctx ends. A file that does not load, or a change
// that needs a restart, is logged and the running configuration kept.
func reloadOnChange(ctx context.Context, log logrus.FieldLogger, o *runOptions, a *agent.Agent, view *ui.Store) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	last, _ := os.ReadFile(o.config)
	tick := time.NewTicker(configCheckInterval)
	defer tick.Stop()
	for {
		signalled := false
		select {
		case <-ctx.Done():
			return
		case <-hup:
			log.Info("SIGHUP: reloading the configuration")
			signalled = true
		case <-tick.C:
		}
		data, err := os.ReadFile(o.config)
		switch {
		case err != nil:
			if signalled { // a file being replaced is tried again at the next tick
				log.WithError(err).Error("configuration not reloaded")
			}
			continue
		case !signalled && bytes.Equal(data, last):
			continue
		}
		last = data
		cfg, err := loadShard(o)
		if err != nil {
			log.WithError(err).Error("configuration not reloaded: fix the file; the agent goes on with the configuration it has")
			continue
		}
		ch, err := a.Reload(cfg)
		if err == nil && view != nil {
			view.SetApps(cfg.Apps)
		}
		switch {
		case err != nil:
			log.WithError(err).Error("configuration not reloaded")
		case ch.Empty():
			log.Info("configuration reloaded: no app changed")
		default:
			log.WithFields(logrus.Fields{"added": ch.Added, "removed": ch.Removed, "changed": ch.Changed}).Info("configuration change accepted: the next poll starts now")
		}
	}
}

// loadShard loads the configuration file and keeps the run's shard of it.
func loadShard(o *runOptions) (*config.Config, error) {
	cfg, err := config.Load(o.config)
	if err != nil {
		return nil, err
	}
	if o.shard != "" {
		i, n, err := config.ParseShard(o.shard)
		if err != nil {
			return nil, err
		}
		if err := cfg.Shard(i, n); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}
