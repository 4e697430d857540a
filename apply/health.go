package apply

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/roleout/roleout/apply/healthcheck"
	"github.com/roleout/roleout/internal/object"
)

// NotReadyError says which object was not healthy when a wait ended.
type NotReadyError struct {
	Object object.Ref
	// Status is the object's kstatus status (InProgress, Failed, …).
	Status string
	// Message is kstatus' explanation, from the object's conditions.
	Message string
	Err     error
}

func (e *NotReadyError) Error() string {
	msg := fmt.Sprintf("%s not ready (%s)", e.Object, e.Status)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.Err != nil {
		msg += "; " + e.Err.Error()
	}
	return msg
}

func (e *NotReadyError) Unwrap() error { return e.Err }

// WaitOptions are the per-call choices of WaitHealthy.
type WaitOptions struct {
	// Timeout bounds the wait.
	Timeout time.Duration
	// Progress, when set, is called after each read of the objects with
	// how many of them are healthy (ready) of all (total): the web view's
	// progress bar. It must return quickly.
	Progress func(ready, total int)
	// Rules are health rules by kind (CEL, apply/healthcheck): an object
	// of a kind they name is healthy as its rule says, instead of by
	// kstatus and the built-in readiness.
	Rules *healthcheck.Rules
	// Applied are the objects as the apply just before returned them
	// (Result.Applied), by reference: the first look at each is at its
	// entry here instead of a GET, and only what is not healthy then is
	// read again. A ConfigMap, say, is Current as soon as it is written:
	// a wave of them is waited on with no request at all.
	Applied map[object.Ref]*unstructured.Unstructured
}

// WaitHealthy waits until every object in objs is Current by kstatus:
// Deployments rolled out, StatefulSets at their update revision,
// DaemonSets updated and available on every node, Jobs complete (kstatus
// alone counts a running Job as Current), custom resources Ready when
// they have a Ready condition (one without any known condition counts as
// Current, as kstatus decides). It returns a *NotReadyError naming the
// first object that is not when timeout passes or ctx ends, and at once
// when an object's status is Failed. For a workload, the error also says
// what its first pod that is not ready reports (unschedulable, an image
// that cannot be pulled), when roleout may list pods.
func (a *Applier) WaitHealthy(ctx context.Context, objs []*unstructured.Unstructured, opts WaitOptions) error {
	timeout := opts.Timeout
	deadline := time.Now().Add(timeout)
	pending := append([]*unstructured.Unstructured(nil), objs...)
	tick := time.NewTicker(a.opts.PollInterval)
	defer tick.Stop()
	seen := opts.Applied
	for {
		var notReady *NotReadyError
		var still []*unstructured.Unstructured
		for _, o := range pending {
			nr := a.check(ctx, o, opts.Rules, seen[object.RefOf(o)])
			if nr == nil {
				continue
			}
			if nr.Status == string(status.FailedStatus) {
				nr.Message = joinMessages(nr.Message, a.podHint(ctx, o))
				return nr
			}
			if notReady == nil {
				notReady = nr
			}
			still = append(still, o)
		}
		if opts.Progress != nil {
			opts.Progress(len(objs)-len(still), len(objs))
		}
		if len(still) == 0 {
			return nil
		}
		pending, seen = still, nil // later looks read the objects again
		if time.Now().After(deadline) {
			notReady.Message = joinMessages(notReady.Message, a.podHint(ctx, still[0]))
			notReady.Err = fmt.Errorf("still %s after waiting %s", notReady.Status, timeout)
			return notReady
		}
		select {
		case <-ctx.Done():
			notReady.Err = ctx.Err()
			return notReady
		case <-tick.C:
		}
	}
}

// check reads o, unless live is what a read of it returned just now,
// and returns nil when it is Current: by its kind's rule in rules, else
// by kstatus and the built-in readiness.
func (a *Applier) check(ctx context.Context, o *unstructured.Unstructured, rules *healthcheck.Rules, live *unstructured.Unstructured) *NotReadyError {
	ref := object.RefOf(o)
	if live == nil {
		ri, err := a.resource(o.DeepCopy())
		if err != nil {
			return &NotReadyError{Object: ref, Status: string(status.UnknownStatus), Err: err}
		}
		live, err = ri.Get(ctx, o.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return &NotReadyError{Object: ref, Status: string(status.NotFoundStatus)}
		}
		if err != nil {
			return &NotReadyError{Object: ref, Status: string(status.UnknownStatus), Err: err}
		}
	}
	if st, msg, ok := rules.Evaluate(live); ok {
		if st == healthcheck.Current {
			return nil
		}
		return &NotReadyError{Object: ref, Status: string(st), Message: msg}
	}
	res, err := status.Compute(live)
	if err != nil {
		return &NotReadyError{Object: ref, Status: string(status.UnknownStatus), Err: err}
	}
	if res.Status == status.CurrentStatus {
		if msg, done := ready(live); !done {
			return &NotReadyError{Object: ref, Status: string(status.InProgressStatus), Message: msg}
		}
		return nil
	}
	return &NotReadyError{Object: ref, Status: string(res.Status), Message: withConditions(res.Message, live)}
}

// negativeConditions are condition types that report trouble when True;
// other types report trouble when False or Unknown.
var negativeConditions = map[string]bool{"ReplicaFailure": true, "Failed": true, "FailureTarget": true, "Stalled": true, "Reconciling": true}

// withConditions appends to kstatus' message (for a Deployment only
// counts, "Available: 0/2") the object's own conditions that say what is
// wrong, "Available=False MinimumReplicasUnavailable: Deployment does not
// have minimum availability.", skipping any that only repeat msg. All of it
// goes through statusText: controllers may quote credentials.
func withConditions(msg string, live *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
	parts := []string{}
	if msg != "" {
		parts = append(parts, statusText(msg))
	}
	for _, c := range conds {
		m, _ := c.(map[string]any)
		typ, _ := m["type"].(string)
		st, _ := m["status"].(string)
		text, _ := m["message"].(string)
		reason, _ := m["reason"].(string)
		if text == "" || text == msg || (st == "True") != negativeConditions[typ] {
			continue
		}
		parts = append(parts, statusText(strings.TrimSpace(fmt.Sprintf("%s=%s %s", typ, st, reason))+": "+text))
	}
	return strings.Join(parts, "; ")
}
