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
	{Group: "orchestration.aibrix.ai", Kind: "StormService"}:     stormServiceReady,
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

// stormServiceReady: the aibrix controller has seen the current spec and
// every replica is on the new revision and ready. The StormService CRD
// has no Ready condition kstatus could wait on, so kstatus alone calls it
// Current as soon as it is observed, mid-update.
func stormServiceReady(live *unstructured.Unstructured) (string, bool) {
	want, found, _ := unstructured.NestedInt64(live.Object, "spec", "replicas")
	if !found {
		want = 1
	}
	observed := count(live, "status", "observedGeneration")
	replicas, updatedReady := count(live, "status", "replicas"), count(live, "status", "updatedReadyReplicas")
	updated, readyReplicas := count(live, "status", "updatedReplicas"), count(live, "status", "readyReplicas")
	current, _, _ := unstructured.NestedString(live.Object, "status", "currentRevision")
	update, _, _ := unstructured.NestedString(live.Object, "status", "updateRevision")
	revisionDone := current == "" || update == "" || current == update
	if observed >= live.GetGeneration() && replicas == want && updated == want && readyReplicas == want && updatedReady == want && revisionDone {
		return "", true
	}
	msg := fmt.Sprintf("StormService replicas: %d of %d updated, %d of %d ready, %d of %d updated and ready", updated, want, readyReplicas, want, updatedReady, want)
	if replicas != want {
		msg += fmt.Sprintf(", %d exist", replicas)
	}
	if !revisionDone {
		msg += fmt.Sprintf(", revision %s still current (updating to %s)", current, update)
	}
	if observed < live.GetGeneration() {
		msg += fmt.Sprintf(", generation %d not yet observed (at %d)", live.GetGeneration(), observed)
	}
	return msg, false
}
