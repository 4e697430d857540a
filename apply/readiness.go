package apply

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// readiness holds, by kind, what a workload must show beyond kstatus'
// Current before a wave may move on. kstatus counts a Job that has
// started, and a custom resource its controller has observed, as
// Current; roleout waits for what the next wave relies on. A kind not in
// the table needs only Current.
var readiness = map[schema.GroupKind]func(live *unstructured.Unstructured) (string, bool){
	{Group: "batch", Kind: "Job"}:                                jobComplete,
	{Group: "leaderworkerset.x-k8s.io", Kind: "LeaderWorkerSet"}: leaderWorkerSetReady,
}

// ready reports whether live is ready by its kind's rule in readiness,
// and if not, says how far it got.
func ready(live *unstructured.Unstructured) (string, bool) {
	if rule, ok := readiness[live.GroupVersionKind().GroupKind()]; ok {
		return rule(live)
	}
	return "", true
}

// count reads an integer field of live, 0 when absent.
func count(live *unstructured.Unstructured, field ...string) int64 {
	n, _, _ := unstructured.NestedInt64(live.Object, field...)
	return n
}

// conditionTrue reports whether live has condition typ with status True.
func conditionTrue(live *unstructured.Unstructured, typ string) bool {
	conds, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ && m["status"] == "True" {
			return true
		}
	}
	return false
}

// jobComplete: a Job has completed, so that a later wave can rely on what
// it did (a migration, a seed).
func jobComplete(live *unstructured.Unstructured) (string, bool) {
	if conditionTrue(live, "Complete") {
		return "", true
	}
	completions := count(live, "spec", "completions")
	if completions == 0 {
		if completions = count(live, "spec", "parallelism"); completions == 0 {
			completions = 1
		}
	}
	return fmt.Sprintf("Job not complete: %d of %d succeeded, %d active, %d failed",
		count(live, "status", "succeeded"), completions, count(live, "status", "active"), count(live, "status", "failed")), false
}

// leaderWorkerSetReady: the lws controller has seen the current spec and
// every group is on the new template and ready, with no rolling update in
// progress. The controller's Available condition alone is true as soon as
// some groups are ready, mid-update.
func leaderWorkerSetReady(live *unstructured.Unstructured) (string, bool) {
	want, found, _ := unstructured.NestedInt64(live.Object, "spec", "replicas")
	if !found {
		want = 1
	}
	observed := count(live, "status", "observedGeneration")
	updated, readyGroups, groups := count(live, "status", "updatedReplicas"), count(live, "status", "readyReplicas"), count(live, "status", "replicas")
	updating := conditionTrue(live, "UpdateInProgress")
	if (observed == 0 || observed >= live.GetGeneration()) && !updating && groups == want && updated == want && readyGroups == want {
		return "", true
	}
	msg := fmt.Sprintf("LeaderWorkerSet groups: %d of %d updated, %d of %d ready", updated, want, readyGroups, want)
	if groups != want {
		msg += fmt.Sprintf(", %d exist", groups)
	}
	if updating {
		msg += ", rolling update in progress"
	}
	if observed != 0 && observed < live.GetGeneration() {
		msg += fmt.Sprintf(", generation %d not yet observed (at %d)", live.GetGeneration(), observed)
	}
	return msg, false
}
