package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/status"
)

// observeTimeout bounds how long the agent waits for a controller to
// report the identity it gave a workload after its wave was healthy.
const observeTimeout = 10 * time.Second

// logSkew logs, in one line per version skew, how many predictions of
// the workloads of roles it leaves unverified: "version skew: the cluster
// runs lws v0.8.1, roleout models v0.9.0: 3 LeaderWorkerSet predictions
// unverified".
func logSkew(log logrus.FieldLogger, roles []*model.Role) {
	type key struct {
		skew object.Skew
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
func (run *appRun) observeWorkloads(ctx context.Context, log logrus.FieldLogger, roles []*model.Role) {
	r := run.steps
	var objs []*unstructured.Unstructured
	for _, role := range roles {
		byRef := map[object.Ref]*unstructured.Unstructured{}
		for _, o := range role.Objects {
			byRef[object.RefOf(o)] = o
		}
		for _, w := range role.Workloads {
			if o := byRef[w.Ref]; o != nil && apply.Observes(o) { // others have no observer
				objs = append(objs, o)
			}
		}
	}
	logSkew(log, roles)
	results := run.observeAll(ctx, objs)
	for _, role := range roles {
		st := r.status(role.Name)
		st.Workloads = nil
		for _, w := range role.Workloads {
			ws := status.Workload{WorkloadSummary: w.Summary()}
			res, observed := results[w.Ref]
			if !observed {
				st.Workloads = append(st.Workloads, ws)
				continue
			}
			wlog := log.WithFields(logrus.Fields{"role": role.Name, "workload": w.Ref.String()})
			if res.Err != nil {
				wlog.WithError(res.Err).Warn("could not read the identity the controller gave the workload")
			} else {
				p := res.Observed
				ws.Observed, ws.Match = &p, p.Equal(w.Predicted)
				if !r.healing[role.Name] { // a heal is its own Event (DriftHealed)
					run.workloadEvent(ctx, role, st, w, p)
				}
				switch {
				case !ws.Match && w.Unverified != "":
					wlog.Infof("the controller made %s; roleout predicted %s", p.String(), w.Predicted.Describe(w.Unverified))
				case !ws.Match:
					wlog.Warnf("predicted %s but the controller made %s: a webhook, another writer or a version skew changed the template",
						w.Predicted.String(), p.String())
				}
			}
			st.Workloads = append(st.Workloads, ws)
		}
		r.recordWorkloads(role.Name, st.Workloads)
	}
}

// observeAll observes objs, observing again those whose controller lags
// until observeTimeout passes.
func (run *appRun) observeAll(ctx context.Context, objs []*unstructured.Unstructured) map[object.Ref]apply.ObserveResult {
	out := map[object.Ref]apply.ObserveResult{}
	pending := objs
	deadline := time.Now().Add(observeTimeout)
	for len(pending) > 0 {
		var again []*unstructured.Unstructured
		for ref, res := range run.cluster.ObserveAll(ctx, pending) {
			out[ref] = res
		}
		for _, o := range pending {
			if errors.Is(out[object.RefOf(o)].Err, apply.ErrNotObserved) {
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
func (run *appRun) workloadEvent(ctx context.Context, role *model.Role, st *status.Role, w model.Workload, observed object.Identity) {
	if e := run.a.cfg.Apply.Events; e != nil && !*e {
		return
	}
	msg := fmt.Sprintf("role %s → rev %d (%s): %s", role.Name, st.RevisionNumber, st.RevisionName, observed.String())
	if !observed.Equal(w.Predicted) {
		msg += fmt.Sprintf(" (predicted %s)", w.Predicted.Describe(w.Unverified))
	}
	if err := run.cluster.Event(ctx, w.Ref, "RolledOut", msg); err != nil {
		run.log.WithError(err).WithField("workload", w.Ref.String()).Debug("event not recorded")
	}
}
