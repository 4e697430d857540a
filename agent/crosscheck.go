package agent

import (
	"context"

	"fmt"
	"reflect"

	"github.com/sirupsen/logrus"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/revision"
	"github.com/roleout/roleout/status"
)

// checkClusterRecord cross-checks a role revision read from the status
// branch with the agent's own record of it in its cluster: the
// ControllerRevision syncClusterRevisions applied there when the revision
// was made (status.clusterRevisions, on by default). Anyone with push
// rights to the repository can write the status branch; only the agent
// writes its namespace. A revision the cluster does not hold, or holds
// with other objects, is refused. With cluster revisions off there is no
// record to check against, and nil is returned.
func (a *Agent) checkClusterRecord(ctx context.Context, app config.App, rev revision.RoleRevision) error {
	conf := a.cfg.Status.ClusterRevisions
	if !conf.On() {
		return nil
	}
	ns := conf.AgentNamespace()
	live, err := a.recordedRevision(ctx, app, rev.Name)
	if err != nil {
		return fmt.Errorf("read the cluster's record of revision %s (ControllerRevision %s/%s): %w", rev.Name, ns, rev.Name, err)
	}
	if live == nil {
		return fmt.Errorf("revision %s is on the status branch but not in the agent's record in the cluster (ControllerRevision %s/%s of app %s): "+
			"the agent never made it; roll back in git instead", rev.Name, ns, rev.Name, app.Name)
	}
	var cr appsv1.ControllerRevision
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, &cr); err != nil {
		return fmt.Errorf("read ControllerRevision %s/%s: %w", ns, rev.Name, err)
	}
	recorded, err := revision.FromControllerRevision(&cr)
	if err != nil {
		return fmt.Errorf("read ControllerRevision %s/%s: %w", ns, rev.Name, err)
	}
	if recorded.Hash != rev.Hash || !reflect.DeepEqual(recorded.Objects, rev.Objects) {
		return fmt.Errorf("revision %s on the status branch differs from the agent's record in the cluster (ControllerRevision %s/%s): "+
			"someone changed the status branch; roll back in git instead", rev.Name, ns, rev.Name)
	}
	return nil
}

// crossCheckUnchanged applies again every role the status branch says is
// already at the planned revision when the agent's record in the cluster
// (the ControllerRevision it made) has no such revision of the app:
// someone who can push the status branch could otherwise make a signed
// commit's role look applied. A read that fails leaves the role as
// planned; server-side apply makes the extra write harmless. With cluster
// revisions off there is no record and nothing changes.
func (a *Agent) crossCheckUnchanged(ctx context.Context, log logrus.FieldLogger, app config.App, steps *rollout) {
	conf := a.cfg.Status.ClusterRevisions
	if !conf.On() {
		return
	}
	ns := conf.AgentNamespace()
	for i, role := range steps.plan.Roles() {
		if steps.apply[role.Name] {
			continue
		}
		name := role.Decision.Revision.Name
		if live, err := a.recordedRevision(ctx, app, name); err != nil || live != nil {
			continue
		}
		log.WithField("role", role.Name).Warnf("the status branch says role %s is at revision %s, but the agent's record in the cluster (ControllerRevisions in %s) has no such revision: applying it again",
			role.Name, name, ns)
		steps.apply[role.Name] = true
		if i < len(steps.roles) {
			steps.roles[i].Result = status.RolePending
		}
	}
}

// recordedRevision reads the agent's record in its cluster of app's role
// revision name: its ControllerRevision, nil when the cluster has none of
// this app's.
func (a *Agent) recordedRevision(ctx context.Context, app config.App, name string) (*unstructured.Unstructured, error) {
	live, err := a.deps.Cluster.Live(ctx, clusterRevisionRef(a.cfg.Status.ClusterRevisions.AgentNamespace(), name))
	if err != nil || live == nil || live.GetLabels()[object.AppLabel] != app.Name {
		return nil, err
	}
	return live, nil
}
