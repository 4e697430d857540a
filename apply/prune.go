package apply

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/roleout/roleout/internal/object"
)

// persistentKinds are kept by prune unless the app or the object opts
// in: deleting one deletes what it holds (a Namespace's objects, every
// custom resource of a CRD, a claim's volume).
var persistentKinds = map[schema.GroupKind]bool{
	{Kind: "Namespace"}: true,
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: true,
	{Kind: "PersistentVolumeClaim"}:                                   true,
}

// PruneOptions are the choices of Prune.
type PruneOptions struct {
	// OwnerLabel and OwnerValue: only objects that carry this label with
	// this value are deleted (roleout.dev/app=<app>).
	OwnerLabel, OwnerValue string
	// Persistent lets prune delete Namespaces, CustomResourceDefinitions
	// and PersistentVolumeClaims; without it only those annotated
	// roleout.dev/prune: "true" are, and only with PruneAnnotated.
	Persistent bool
	// PruneAnnotated honours the annotation roleout.dev/prune: "true" on
	// a persistent object. Off, it grants nothing.
	PruneAnnotated bool
	// PersistentField names the user's setting of Persistent
	// (apps[1].prunePersistent), and AnnotationsField the one of
	// PruneAnnotated, so that a skip says what to change.
	PersistentField, AnnotationsField string
	// Timeout bounds the wait for each object to be gone (finalizers).
	Timeout time.Duration
}

// Keep returns why prune must leave live alone, or "" when it may delete
// it: live is not the owner's, is annotated roleout.dev/prune: "false",
// is of a persistent kind (Namespace, CRD, PVC) nobody opted in to
// pruning, or is a Namespace its app did not create.
func (opts PruneOptions) Keep(live *unstructured.Unstructured) string {
	prune := live.GetAnnotations()[object.PruneAnnotation]
	gk := live.GroupVersionKind().GroupKind()
	switch {
	case live.GetLabels()[opts.OwnerLabel] != opts.OwnerValue:
		return fmt.Sprintf("not labelled %s=%s", opts.OwnerLabel, opts.OwnerValue)
	case prune == "false":
		return object.PruneAnnotation + ": \"false\""
	case persistentKinds[gk] && !opts.Persistent && !(opts.PruneAnnotated && prune == "true"):
		fix := fmt.Sprintf("annotate it %s: \"true\" and list that annotation in %s", object.PruneAnnotation, fieldOr(opts.AnnotationsField, "allowedAnnotations"))
		if opts.PruneAnnotated {
			fix = fmt.Sprintf("annotate it %s: \"true\"", object.PruneAnnotation)
		}
		if opts.PersistentField != "" {
			fix = fmt.Sprintf("set %s: true or %s", opts.PersistentField, fix)
		}
		return fmt.Sprintf("a %s is not pruned unless the app opts in (%s); left in the cluster", live.GetKind(), fix)
	case gk == namespaceKind && live.GetAnnotations()[object.CreatedByAnnotation] != opts.OwnerValue:
		return fmt.Sprintf("a Namespace the app did not create (annotation %s is not %s) is never pruned; left in the cluster",
			object.CreatedByAnnotation, opts.OwnerValue)
	}
	return ""
}

// namespaceKind is the Namespace's group and kind.
var namespaceKind = schema.GroupKind{Kind: "Namespace"}

// markCreator keeps content from naming a Namespace's creator and names
// app (the app label's value, "" for none) as the creator of a Namespace
// it creates (before is nil) or created before (before names it): the
// record prune reads (Keep). Dry runs mark alike, so a diff shows no
// change where a rollout would make none.
func markCreator(o, before *unstructured.Unstructured, app string) {
	if app == "" || o.GroupVersionKind().GroupKind() != namespaceKind {
		return
	}
	ann := o.GetAnnotations()
	delete(ann, object.CreatedByAnnotation)
	if before == nil || before.GetAnnotations()[object.CreatedByAnnotation] == app {
		if ann == nil {
			ann = map[string]string{}
		}
		ann[object.CreatedByAnnotation] = app
	}
	o.SetAnnotations(ann)
}

// Prune deletes refs in the given order (callers pass reverse apply
// order), one at a time, waiting for each to be gone. An object that is
// already gone or that opts.Keep keeps (another owner's, annotated
// roleout.dev/prune: "false", a persistent kind) is skipped with a reason.
func (a *Applier) Prune(ctx context.Context, refs []object.Ref, opts PruneOptions) ([]Result, error) {
	var results []Result
	for _, ref := range refs {
		res := a.pruneOne(ctx, ref, opts)
		results = append(results, res)
		if res.Err != nil {
			return results, res.Err
		}
	}
	return results, nil
}

func (a *Applier) pruneOne(ctx context.Context, ref object.Ref, opts PruneOptions) Result {
	res := Result{Object: ref}
	ri, err := a.resource(ref.Empty())
	if err != nil {
		return res.fail(err)
	}
	live, err := ri.Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		res.Action, res.Reason = Skipped, "already gone"
		return res
	case err != nil:
		return res.fail(fmt.Errorf("read: %w", err))
	}
	if reason := opts.Keep(live); reason != "" {
		res.Action, res.Reason = Skipped, reason
		return res
	}
	if err := a.deleteAndWait(ctx, ri, live, opts.Timeout); err != nil {
		return res.fail(err)
	}
	res.Action = Deleted
	return res
}

// deleteAndWait deletes live (background propagation, guarded by its UID)
// and waits until it is gone, finalizers included, or timeout passes.
func (a *Applier) deleteAndWait(ctx context.Context, ri dynamic.ResourceInterface, live *unstructured.Unstructured, timeout time.Duration) error {
	uid := live.GetUID()
	policy := metav1.DeletePropagationBackground
	err := ri.Delete(ctx, live.GetName(), metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &policy,
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete: %w", err)
	}
	deadline := time.Now().Add(timeout)
	for {
		cur, err := ri.Get(ctx, live.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && cur.GetUID() != uid) {
			return nil
		}
		if time.Now().After(deadline) {
			msg := "still there"
			if err == nil && len(cur.GetFinalizers()) > 0 {
				msg = fmt.Sprintf("waiting on finalizers %v", cur.GetFinalizers())
			}
			return fmt.Errorf("deleted but %s after %s", msg, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(a.opts.PollInterval / 2):
		}
	}
}
