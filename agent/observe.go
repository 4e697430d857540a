package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/revision"
)

// observeTimeout bounds how long the agent waits for a controller to
// report the identity it gave a workload after its wave was healthy.
const observeTimeout = 10 * time.Second

// collisionCounts reads the live status.collisionCount of every workload
// in objs, so predictions use what the controllers will use. Objects that
// do not exist yet, and read errors, count as none.
func (a *Agent) collisionCounts(ctx context.Context, objs []*unstructured.Unstructured) map[render.ObjectRef]*int32 {
	out := map[render.ObjectRef]*int32{}
	if a.deps.Applier == nil {
		return out
	}
	var workloads []*unstructured.Unstructured
	for _, o := range objs {
		if revision.IsWorkload(o) {
			workloads = append(workloads, o)
		}
	}
	if len(workloads) == 0 {
		return out
	}
	for ref, cc := range a.deps.Applier.CollisionCounts(ctx, workloads) {
		out[ref] = cc
	}
	return out
}

// liveCRDs reads from the cluster the CRDs of the custom workloads among
// objs, whose schema defaults predictions apply.
func (a *Agent) liveCRDs(ctx context.Context, objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	if a.deps.Applier == nil {
		return nil
	}
	var out []*unstructured.Unstructured
	seen := map[string]bool{}
	for _, o := range objs {
		gk := o.GroupVersionKind().GroupKind()
		if !revision.IsWorkload(o) || gk.Group == "apps" || seen[gk.String()] {
			continue
		}
		seen[gk.String()] = true
		if crd, err := a.deps.Applier.CRDFor(ctx, o); err == nil && crd != nil {
			out = append(out, crd)
		}
	}
	return out
}

// versionReader is an Applier that reads the versions its cluster runs
// (apply.Applier.ClusterVersions, cached per cluster). It is optional:
// an Applier without it (the fakes, the bench's wrapper) knows none.
type versionReader interface {
	ClusterVersions(ctx context.Context, controllers []apply.ControllerDeployment) apply.ClusterVersions
}

// clusterVersions reads the versions the app's cluster runs of Kubernetes
// and of the controllers roleout models (revision.Controllers).
func (a *Agent) clusterVersions(ctx context.Context) revision.ClusterVersions {
	vr, ok := a.deps.Applier.(versionReader)
	if !ok || vr == nil {
		return revision.ClusterVersions{}
	}
	var cds []apply.ControllerDeployment
	for _, c := range revision.Controllers() {
		cds = append(cds, apply.ControllerDeployment{Name: c.Name, Namespace: c.Namespace, Deployment: c.Deployment, Container: c.Container})
	}
	v := vr.ClusterVersions(ctx, cds)
	return revision.ClusterVersions{Kubernetes: v.Kubernetes, Controllers: v.Controllers}
}

// logSkew logs, in one line per version skew, how many predictions of
// the workloads of roles it leaves unverified: "version skew: the cluster
// runs lws v0.8.1, roleout models v0.9.0: 3 LeaderWorkerSet predictions
// unverified".
func logSkew(log logrus.FieldLogger, roles []*render.Role) {
	type key struct {
		skew revision.Skew
		kind string
	}
	counts := map[key]int{}
	var order []key
	for _, role := range roles {
		for _, w := range role.Workloads {
			if w.Skew.IsZero() {
				continue
			}
			k := key{w.Skew, w.Ref.Kind}
			if counts[k] == 0 {
				order = append(order, k)
			}
			counts[k]++
		}
	}
	for _, k := range order {
		noun := "prediction"
		if counts[k] > 1 {
			noun += "s"
		}
		log.Warnf("version skew: the cluster runs %s %s, roleout models %s: %d %s %s unverified",
			k.skew.Component, k.skew.Cluster, k.skew.Modelled, counts[k], k.kind, noun)
	}
}

// observeWorkloads reads, after a healthy wave, the identity each
// workload of the wave's applied roles was given by its controller,
// records it next to the prediction in the role's status and warns on a
// mismatch: a webhook, another writer or a version skew changed the
// template. A known version skew is one line for the wave (logSkew); the
// mismatches of the predictions it leaves unverified are logged at info.
func (a *Agent) observeWorkloads(ctx context.Context, log logrus.FieldLogger, roles []*render.Role, r *rollout) {
	var objs []*unstructured.Unstructured
	for _, role := range roles {
		byRef := map[render.ObjectRef]*unstructured.Unstructured{}
		for _, o := range role.Objects {
			byRef[render.RefOf(o)] = o
		}
		for _, w := range role.Workloads {
			objs = append(objs, byRef[w.Ref])
		}
	}
	logSkew(log, roles)
	results := a.observeAll(ctx, objs)
	for _, role := range roles {
		st := r.status(role.Name)
		st.Workloads = nil
		for _, w := range role.Workloads {
			ws := WorkloadStatus{Kind: w.Ref.Kind, Namespace: w.Ref.Namespace, Name: w.Ref.Name, RestartsPods: w.RestartsPods,
				Predicted: w.Predicted, Schema: w.Schema, Unverified: w.Unverified}
			res := results[w.Ref]
			wlog := log.WithFields(logrus.Fields{"role": role.Name, "workload": w.Ref.String()})
			if res.Err != nil {
				wlog.WithError(res.Err).Warn("could not read the identity the controller gave the workload")
			} else {
				p := observedIdentity(res.Observed)
				ws.Observed, ws.Match = &p, p.Equal(w.Predicted)
				if !r.healing[role.Name] { // a heal is its own Event (DriftHealed)
					a.workloadEvent(ctx, role, st, w, p)
				}
				switch {
				case !ws.Match && w.Unverified != "":
					wlog.Infof("the controller made %s; roleout predicted %s", DescribePrediction(p), DescribePredicted(w.Predicted, w.Unverified))
				case !ws.Match:
					wlog.Warnf("predicted %s but the controller made %s: a webhook, another writer or a version skew changed the template",
						DescribePrediction(w.Predicted), DescribePrediction(p))
				}
			}
			st.Workloads = append(st.Workloads, ws)
		}
	}
}

// observedIdentity is an observation in the terms of a prediction, so the
// two compare.
func observedIdentity(obs apply.Observed) revision.Prediction {
	return revision.Prediction{
		PodTemplateHash: obs.PodTemplateHash, ReplicaSetName: obs.ReplicaSetName,
		ControllerRevisionName: obs.ControllerRevisionName, ControllerRevisionHash: obs.ControllerRevisionHash,
		TemplateRevisionHash: obs.TemplateRevisionHash, RoleTemplateHashes: obs.RoleTemplateHashes,
	}
}

// observeAll observes objs, observing again those whose controller lags
// until observeTimeout passes.
func (a *Agent) observeAll(ctx context.Context, objs []*unstructured.Unstructured) map[apply.ObjectRef]apply.ObserveResult {
	out := map[apply.ObjectRef]apply.ObserveResult{}
	pending := objs
	deadline := time.Now().Add(observeTimeout)
	for len(pending) > 0 {
		var again []*unstructured.Unstructured
		for ref, res := range a.deps.Applier.ObserveAll(ctx, pending) {
			out[ref] = res
		}
		for _, o := range pending {
			if errors.Is(out[apply.RefOf(o)].Err, apply.ErrNotObserved) {
				again = append(again, o)
			}
		}
		if len(again) == 0 || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return out
		case <-time.After(200 * time.Millisecond):
		}
		pending = again
	}
	return out
}

// workloadEvent records the rollout on the workload as an Event, unless
// the config turns events off.
func (a *Agent) workloadEvent(ctx context.Context, role *render.Role, st *RoleStatus, w render.Workload, observed revision.Prediction) {
	if e := a.cfg.Apply.Events; e != nil && !*e {
		return
	}
	msg := fmt.Sprintf("role %s → rev %d (%s): %s", role.Name, st.Revision, st.RevisionName, DescribePrediction(observed))
	if !observed.Equal(w.Predicted) {
		msg += fmt.Sprintf(" (predicted %s)", DescribePredicted(w.Predicted, w.Unverified))
	}
	if err := a.deps.Applier.Event(ctx, w.Ref, "RolledOut", msg); err != nil {
		a.log.WithError(err).WithField("workload", w.Ref.String()).Debug("event not recorded")
	}
}

// DescribePredicted names a workload's predicted identity for a person,
// marked unverified with the reason when roleout cannot vouch for it
// (render.Workload.Unverified): "ReplicaSet web-6d9f8c7b5", "no
// prediction, unverified: …".
func DescribePredicted(p revision.Prediction, unverified string) string {
	switch {
	case unverified == "":
		return DescribePrediction(p)
	case p.Equal(revision.Prediction{}):
		return "no prediction, unverified: " + unverified
	default:
		return DescribePrediction(p) + ", unverified: " + unverified
	}
}

// DescribePrediction names an identity for a person: "ReplicaSet web-6d9f8c7b5".
func DescribePrediction(p revision.Prediction) string {
	switch {
	case p.ReplicaSetName != "":
		return "ReplicaSet " + p.ReplicaSetName
	case p.ControllerRevisionName != "":
		return "ControllerRevision " + p.ControllerRevisionName
	case p.ControllerRevisionHash != "":
		return "controller-revision-hash " + p.ControllerRevisionHash
	case p.TemplateRevisionHash != "":
		return "template-revision-hash " + p.TemplateRevisionHash
	}
	return fmt.Sprintf("%+v", p)
}
