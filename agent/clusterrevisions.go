package agent

import (
	"context"
	"crypto/sha256"
	"path"
	"strings"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
)

// syncClusterRevisions applies the role revisions among a status commit's
// files to the agent's cluster and deletes those the commit deletes
// (truncated history). Only objects labelled as this app's are deleted.
// A revision already put there unchanged by this agent is not sent again.
func (a *Agent) syncClusterRevisions(ctx context.Context, log logrus.FieldLogger, app config.App, files map[string][]byte) {
	conf := a.cfg.Status.ClusterRevisions
	if !conf.On() || a.dryRun {
		return
	}
	ns := conf.AgentNamespace()
	prefix := path.Join(app.Name, "revisions") + "/"
	var objs []*unstructured.Unstructured
	var gone []object.Ref
	sums := map[string][32]byte{}
	a.mu.Lock()
	for p, data := range files {
		if !strings.HasPrefix(p, prefix) || !strings.HasSuffix(p, ".yaml") {
			continue
		}
		sum := sha256.Sum256(data)
		if old, ok := a.synced[p]; ok && old == sum && data != nil {
			continue
		}
		sums[p] = sum
		if data == nil {
			gone = append(gone, clusterRevisionRef(ns, strings.TrimSuffix(path.Base(p), ".yaml")))
			continue
		}
		o := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &o.Object); err != nil {
			log.WithError(err).WithField("file", p).Warn("role revision not written to the cluster")
			continue
		}
		o.SetNamespace(ns)
		objs = append(objs, o)
	}
	a.mu.Unlock()
	applier := a.deps.Cluster // the agent's own, whichever cluster the app is on
	if len(objs) > 0 {
		opts := apply.ApplyOptions{Labels: map[string]string{object.AppLabel: app.Name}, SkipUnchanged: true, Force: true}
		if _, err := applier.Apply(ctx, objs, opts); err != nil {
			log.WithError(err).WithField("namespace", ns).Warn("role revisions not written to the cluster (the status branch has them)")
			return
		}
	}
	if len(gone) > 0 {
		if _, err := applier.Prune(ctx, gone, apply.PruneOptions{OwnerLabel: object.AppLabel, OwnerValue: app.Name, Timeout: app.Timeout.Duration}); err != nil {
			log.WithError(err).WithField("namespace", ns).Warn("truncated role revisions not deleted from the cluster")
			return
		}
	}
	a.mu.Lock()
	for p, sum := range sums {
		if files[p] == nil {
			delete(a.synced, p)
		} else {
			a.synced[p] = sum
		}
	}
	a.mu.Unlock()
}

// clusterRevisionRef names the ControllerRevision name in namespace ns.
func clusterRevisionRef(ns, name string) object.Ref {
	return object.Ref{APIVersion: "apps/v1", Kind: "ControllerRevision", Namespace: ns, Name: name}
}
