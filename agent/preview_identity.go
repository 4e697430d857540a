package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/diff"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/status"
)

// NoPreviewIdentity is the ObjectDiff.NotCompared of every object of a
// preview when previews have no identity to read the cluster as.
const NoPreviewIdentity = "previews read no cluster without source.pullRequests.serviceAccount"

// previewAppliers returns Deps.PreviewClusterFor over the agent's own
// cluster (home) and the clusters apps name (clusterFor): the app's
// cluster's applier, impersonating the service account. The appliers are
// made once per cluster and service account.
func previewAppliers(home Cluster, clusterFor func(context.Context, config.App) (Cluster, error)) func(context.Context, config.App, string) (ClusterReader, error) {
	var mu sync.Mutex
	made := map[Cluster]map[string]ClusterReader{}
	return func(ctx context.Context, app config.App, serviceAccount string) (ClusterReader, error) {
		base := home
		if app.Kubeconfig != "" || app.KubeconfigSecret != nil {
			var err error
			if base, err = clusterFor(ctx, app); err != nil {
				return nil, err
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if ap, ok := made[base][serviceAccount]; ok {
			return ap, nil
		}
		ns, name, _ := strings.Cut(serviceAccount, "/")
		ap, err := base.As(apply.ServiceAccountUser(ns, name))
		if err != nil {
			return nil, fmt.Errorf("preview identity %s: %w", serviceAccount, err)
		}
		if made[base] == nil {
			made[base] = map[string]ClusterReader{}
		}
		made[base][serviceAccount] = ap
		return ap, nil
	}
}

// previewer is the agent as it previews one app: cluster reaches the
// app's own cluster as the preview identity (source.pullRequests
// .serviceAccount), never as the agent, and only reads; without one,
// offline says why every object is compared with the last status in git
// instead.
type previewer struct {
	agent   *Agent
	cluster ClusterReader
	offline string
}

// previewerFor returns the previewer of app.
func (a *Agent) previewerFor(ctx context.Context, log logrus.FieldLogger, app config.App) previewer {
	sa := ""
	if pr := a.cfg.Source.PullRequests; pr != nil {
		sa = pr.ServiceAccount
	}
	if sa == "" || a.deps.PreviewClusterFor == nil {
		return previewer{agent: a, offline: NoPreviewIdentity}
	}
	c, err := a.deps.PreviewClusterFor(ctx, app, sa)
	if err != nil {
		log.WithError(err).Warn("cannot reach the app's cluster as the preview identity: previews diff against the last status in git")
		return previewer{agent: a, offline: "cannot reach the app's cluster as " + sa + ": " + err.Error()}
	}
	return previewer{agent: a, cluster: c}
}

// compare compares a preview's plan with the app's cluster, as the
// preview identity and only inside the app's namespaces (diff.Preview),
// or offline with every object saying why it was not compared: there is
// no identity, or the identity may not read or dry-run what the pull
// request holds.
func (p previewer) compare(ctx context.Context, app config.App, plan *model.Plan, prev *status.Records) (*diff.Report, error) {
	target, rec := DiffTarget(app), prev.Recorded()
	if p.cluster == nil {
		return diff.Offline(target, plan, rec).MarkNotCompared(p.offline), nil
	}
	rep, err := diff.Preview(ctx, p.cluster, target, plan, diff.PreviewScope(app.Namespace, prev.Inventory), rec)
	if apierrors.IsForbidden(err) {
		return diff.Offline(target, plan, rec).MarkNotCompared("the preview identity may not read or dry-run it: " + err.Error()), nil
	}
	return rep, err
}
