package apply

import (
	"context"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// podWorkloads are the kinds whose spec.selector selects their pods.
var podWorkloads = map[schema.GroupKind]bool{
	{Group: "apps", Kind: "Deployment"}: true, {Group: "apps", Kind: "StatefulSet"}: true,
	{Group: "apps", Kind: "DaemonSet"}: true, {Group: "apps", Kind: "ReplicaSet"}: true,
	{Group: "batch", Kind: "Job"}: true,
}

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// podHint returns, for a workload that is not ready, what its newest pod
// that is not ready reports: "pod db-7d4b9-x2v9q: PodScheduled=False
// Unschedulable: 0/2 nodes are available: …". It is a hint: "" for other
// kinds, when every pod looks fine, or when the pods cannot be read (an
// agent without the right to list pods).
func (a *Applier) podHint(ctx context.Context, o *unstructured.Unstructured) string {
	if !podWorkloads[o.GroupVersionKind().GroupKind()] {
		return ""
	}
	ri, err := a.resource(o.DeepCopy())
	if err != nil {
		return ""
	}
	live, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
	if err != nil {
		return ""
	}
	raw, found, _ := unstructured.NestedMap(live.Object, "spec", "selector")
	var ls metav1.LabelSelector
	if !found || runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &ls) != nil {
		return ""
	}
	sel, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil || sel.Empty() {
		return ""
	}
	pods, err := a.client.Resource(podsResource).Namespace(live.GetNamespace()).List(ctx, metav1.ListOptions{LabelSelector: sel.String(), Limit: 100})
	if err != nil {
		return ""
	}
	items := pods.Items
	sort.SliceStable(items, func(i, j int) bool {
		return items[j].GetCreationTimestamp().Time.Before(items[i].GetCreationTimestamp().Time)
	})
	for i := range items {
		if items[i].GetDeletionTimestamp() != nil {
			continue
		}
		if trouble := podTrouble(&items[i]); trouble != "" {
			return fmt.Sprintf("pod %s: %s", items[i].GetName(), trouble)
		}
	}
	return ""
}

// podTrouble describes what is wrong with a pod that is not ready: its
// failing conditions and its containers' waiting or failed states, their
// messages made fit for git by podMessage; "" for a pod that is ready or
// has succeeded.
func podTrouble(pod *unstructured.Unstructured) string {
	if phase, _, _ := unstructured.NestedString(pod.Object, "status", "phase"); phase == "Succeeded" {
		return ""
	}
	var parts []string
	if conds := withConditions("", pod); conds != "" {
		parts = append(parts, conds)
	}
	statuses, _, _ := unstructured.NestedSlice(pod.Object, "status", "containerStatuses")
	for _, s := range statuses {
		m, _ := s.(map[string]any)
		name, _ := m["name"].(string)
		for _, state := range []string{"waiting", "terminated"} {
			st, _, _ := unstructured.NestedMap(m, "state", state)
			reason, _ := st["reason"].(string)
			msg, _ := st["message"].(string)
			if st == nil || reason == "Completed" || (reason == "" && msg == "") {
				continue
			}
			parts = append(parts, strings.TrimSuffix(fmt.Sprintf("container %s %s: %s", name, statusText(reason), podMessage(msg)), ": "))
		}
	}
	return strings.Join(parts, "; ")
}

// joinMessages joins the non-empty messages with "; ".
func joinMessages(msgs ...string) string {
	var out []string
	for _, m := range msgs {
		if m != "" {
			out = append(out, m)
		}
	}
	return strings.Join(out, "; ")
}
