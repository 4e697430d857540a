package apply

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
)

// Event records a Normal event on the live object ref names, from
// component roleout, so `kubectl describe` shows what roleout did.
func (a *Applier) Event(ctx context.Context, ref object.Ref, reason, message string) error {
	live, err := a.Live(ctx, ref)
	if err != nil || live == nil {
		return err
	}
	now := metav1.Now().UTC().Format("2006-01-02T15:04:05Z")
	ev := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Event",
		"metadata": map[string]any{"generateName": live.GetName() + ".", "namespace": live.GetNamespace()},
		"involvedObject": map[string]any{
			"apiVersion": live.GetAPIVersion(), "kind": live.GetKind(), "namespace": live.GetNamespace(),
			"name": live.GetName(), "uid": string(live.GetUID()), "resourceVersion": live.GetResourceVersion(),
		},
		"reason": reason, "message": message, "type": "Normal",
		"source":         map[string]any{"component": "roleout"},
		"firstTimestamp": now, "lastTimestamp": now, "count": int64(1),
	}}
	ns := live.GetNamespace()
	if ns == "" {
		ns = "default"
		_ = unstructured.SetNestedField(ev.Object, ns, "metadata", "namespace")
	}
	_, err = a.client.Resource(events).Namespace(ns).Create(ctx, ev, metav1.CreateOptions{})
	return err
}
