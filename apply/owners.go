package apply

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/internal/object"
)

// Ownership says which existing objects an app may write: those that
// carry its ownership label, and others only when it adopts them.
type Ownership struct {
	// Label and Value are the app's ownership label (roleout.dev/app=<app>).
	Label, Value string
	// Adopt lets the app take over objects that carry another value of
	// Label, or none at all.
	Adopt bool
	// AdoptAnnotated lets the app take over the objects whose content is
	// annotated roleout.dev/adopt: "true". Off, the annotation grants
	// nothing: content does not choose its own privileges.
	AdoptAnnotated bool
	// AdoptField names the user's setting of Adopt (apps[1].adopt), and
	// AnnotationsField the one of AdoptAnnotated
	// (apps[1].allowedAnnotations), so that a refusal says what to change.
	AdoptField, AnnotationsField string
}

// adopts reports whether own takes over o whoever owns it.
func (own Ownership) adopts(o *unstructured.Unstructured) bool {
	return own.Adopt || own.AdoptAnnotated && o.GetAnnotations()[object.AdoptAnnotation] == "true"
}

// OwnershipError refuses an object that exists and is not the app's: it
// carries another app's label, or no label (created outside roleout).
type OwnershipError struct {
	Object object.Ref
	// Label is the ownership label; Owner its live value, "" when absent.
	Label, Owner string
	// AdoptField is the setting that would allow the take-over, and
	// AnnotationsField the one that would honour the adopt annotation;
	// Annotated says whether it is honoured already.
	AdoptField, AnnotationsField string
	Annotated                    bool
}

func (e *OwnershipError) Error() string {
	fix := fmt.Sprintf("annotation %s: \"true\" on the object takes it over", object.AdoptAnnotation)
	if !e.Annotated {
		fix = fmt.Sprintf("annotation %s: \"true\" on the object takes it over where %s lists it", object.AdoptAnnotation, fieldOr(e.AnnotationsField, "allowedAnnotations"))
	}
	if e.AdoptField != "" {
		fix = fmt.Sprintf("%s: true or %s", e.AdoptField, fix)
	}
	if e.Owner == "" {
		return fmt.Sprintf("%s: exists without roleout's ownership (no label %s); %s", e.Object, e.Label, fix)
	}
	return fmt.Sprintf("%s: owned by app %s (label %s=%s); %s", e.Object, e.Owner, e.Label, e.Owner, fix)
}

// refusal returns the OwnershipError that keeps o, the object to apply,
// from replacing live, or nil when it may: live does not exist, is the
// app's, or is adopted.
func (own Ownership) refusal(live, o *unstructured.Unstructured) error {
	if live == nil || own.Label == "" || own.adopts(o) {
		return nil
	}
	owner := live.GetLabels()[own.Label]
	if owner == own.Value {
		return nil
	}
	return &OwnershipError{Object: object.RefOf(o), Label: own.Label, Owner: owner,
		AdoptField: own.AdoptField, AnnotationsField: own.AnnotationsField, Annotated: own.AdoptAnnotated}
}

// CheckOwners reads the live metadata of objs (one paged LIST per
// resource and namespace that holds several of them, else a GET each, at
// most Concurrency at once) and returns the OwnershipErrors, joined, of
// those that exist and are not own's to write. Objects of kinds the
// cluster does not serve yet (a CRD an earlier step installs) do not
// exist. Call it before applying any of objs: a refusal then writes
// nothing.
func (a *Applier) CheckOwners(ctx context.Context, objs []*unstructured.Unstructured, own Ownership) error {
	if own.Label == "" || own.Adopt {
		return nil
	}
	// One mapping per kind: an unknown kind triggers one rediscovery, not
	// one per object.
	served := map[schema.GroupVersionKind]bool{}
	var check []*unstructured.Unstructured
	for _, o := range objs {
		if own.adopts(o) {
			continue
		}
		gvk := o.GroupVersionKind()
		ok, seen := served[gvk]
		if !seen {
			_, err := a.mapping(o)
			if err != nil && !meta.IsNoMatchError(err) {
				return fmt.Errorf("%s: check owner: %w", object.RefOf(o), err)
			}
			ok = err == nil
			served[gvk] = ok
		}
		if ok {
			check = append(check, o)
		}
	}
	live := a.prefetch(ctx, check, metadataOnly, own.Label+"="+own.Value)
	errs := make([]error, len(check))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(a.opts.Concurrency)
	for i, in := range check {
		g.Go(func() error {
			o := in.DeepCopy()
			ri, err := a.resource(o)
			if err != nil {
				errs[i] = fmt.Errorf("%s: check owner: %w", object.RefOf(o), err)
				return nil
			}
			before, err := a.before(gctx, ri, o, live)
			if err != nil {
				errs[i] = fmt.Errorf("%s: check owner: read: %w", object.RefOf(o), err)
				return nil
			}
			errs[i] = own.refusal(before, o)
			return nil
		})
	}
	_ = g.Wait()
	return errors.Join(errs...)
}

// fieldOr returns field, or def when it is empty.
func fieldOr(field, def string) string {
	if field == "" {
		return def
	}
	return field
}
