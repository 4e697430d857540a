package agent

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/sources"
)

// kindScopes returns the scope of every kind among objs (plan.KindScopes):
// cluster's discovery first when there is a cluster, then Kubernetes' own
// kinds, then the render's CRDs. A cluster whose discovery fails is an
// error, not a guess.
func kindScopes(ctx context.Context, cluster ClusterReader, objs []*unstructured.Unstructured) (plan.Scopes, error) {
	var live plan.Scopes
	if cluster != nil {
		s, err := cluster.Scopes(ctx, plan.Kinds(objs))
		if err != nil {
			return nil, err
		}
		live = s
	}
	return plan.KindScopes(objs, live), nil
}

// destinations returns where app's objects may go (config.Destinations),
// with what only the cluster knows: the agent's own objects when the app
// goes to the agent's cluster, and, when the app's namespaces are the
// declared ones, who owns each declared Namespace that exists.
func destinations(ctx context.Context, cfg *config.Config, app config.App, snap sources.Snapshot, cluster ClusterReader, objs []*unstructured.Unstructured) (model.Destinations, error) {
	d := cfg.Destinations(app)
	if app.Kubeconfig == "" && app.KubeconfigSecret == nil {
		d.Agent = agentObjects(cfg)
	}
	d.Offline = cluster == nil
	if d.Namespaces != nil || cluster == nil {
		return d, nil
	}
	for _, o := range objs {
		if gvk := o.GroupVersionKind(); gvk.Group != "" || gvk.Kind != "Namespace" || o.GetName() == d.Namespace {
			continue
		}
		live, err := cluster.Live(ctx, object.RefOf(o))
		if err != nil {
			if snap.Trust != sources.Trusted {
				continue // a preview's reader may not read Namespaces; it applies nothing
			}
			return d, fmt.Errorf("read Namespace %s, which the app declares: %w", o.GetName(), err)
		}
		if live != nil {
			if d.NamespaceOwners == nil {
				d.NamespaceOwners = map[string]string{}
			}
			d.NamespaceOwners[o.GetName()] = live.GetLabels()[object.AppLabel]
		}
	}
	return d, nil
}

// agentObjects are the agent's own objects on its home cluster, which no
// app may write: the control and status anchor ConfigMaps, the mask key
// Secret, Leases (the
// leader's) and ControllerRevisions (every app's role revisions) in the
// agent's namespace.
func agentObjects(cfg *config.Config) model.AgentObjects {
	return model.AgentObjects{Namespace: control.Namespace(cfg), Objects: []model.ReservedObject{
		{Kind: "ConfigMap", Name: control.ConfigMapName},
		{Kind: "ConfigMap", Name: control.StatusAnchorName},
		{Kind: "Secret", Name: cfg.Masks.KeySecretName()},
		{Group: "coordination.k8s.io", Kind: "Lease"},
		{Group: "apps", Kind: "ControllerRevision"},
	}}
}
