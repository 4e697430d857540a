package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/internal/fence"
)

// clusters builds, once each, the clusters of the apps that go to another
// cluster than the agent's own (one agent, many clusters).
type clusters struct {
	home      kubernetes.Interface // reads kubeconfig Secrets
	userAgent string
	opts      apply.Options
	// allowUnsafe lets Secrets' kubeconfigs run plugins, read files and
	// skip TLS verification (clusters.allowUnsafeKubeconfigs).
	allowUnsafe bool

	mu sync.Mutex
	// appliers by kubeconfig file, or by the digest of a Secret's
	// kubeconfig so that a rotated one gets a new client.
	appliers map[string]Cluster
}

func newClusters(home *rest.Config, opts apply.Options, cfg config.Clusters) (*clusters, error) {
	cs, err := kubernetes.NewForConfig(home)
	if err != nil {
		return nil, err
	}
	return &clusters{home: cs, userAgent: home.UserAgent, opts: opts, allowUnsafe: cfg.AllowUnsafeKubeconfigs, appliers: map[string]Cluster{}}, nil
}

// clusterFor returns app's cluster: its kubeconfig file, or
// the kubeconfig in its Secret, read from the agent's cluster now and
// refused when it is unsafe (config.CheckKubeconfig) unless the agent allows it.
func (c *clusters) clusterFor(ctx context.Context, app config.App) (Cluster, error) {
	if app.KubeconfigSecret == nil {
		return c.applier("file:"+app.Kubeconfig, func() (*rest.Config, error) {
			cfg, err := clientcmd.BuildConfigFromFlags("", app.Kubeconfig)
			if err != nil {
				return nil, fmt.Errorf("load kubeconfig %s: %w", app.Kubeconfig, err)
			}
			return cfg, nil
		})
	}
	data, where, err := control.KubeconfigSecret(ctx, c.home, *app.KubeconfigSecret)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	return c.applier("secret:"+hex.EncodeToString(sum[:]), func() (*rest.Config, error) {
		return control.ClientConfig(data, where, c.allowUnsafe)
	})
}

// applier returns the cluster client cached under key, building it with load the
// first time.
func (c *clusters) applier(key string, load func() (*rest.Config, error)) (Cluster, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ap, ok := c.appliers[key]; ok {
		return ap, nil
	}
	cfg, err := load()
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = c.userAgent
	ap, err := newApplierCluster(fenced(cfg), c.opts)
	if err != nil {
		return nil, err
	}
	c.appliers[key] = ap
	return ap, nil
}

// fenced returns a copy of cfg whose requests check the claims their
// context holds (internal/fence) as they enter the client, and whose
// connections check the claims of the requests in flight before each
// write: no write of a reconcile reaches a cluster after its replica's
// claim on the app ended, even one held in the client by a pause.
func fenced(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	g := fence.NewGuard()
	cfg.Wrap(g.Transport)
	dial := cfg.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext // client-go's own
	}
	cfg.Dial = g.Dial(dial)
	return cfg
}
