package apply

import (
	"context"
	"errors"
	"fmt"

	"github.com/pmezard/go-difflib/difflib"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/model"
)

// DiffOptions are the choices of Diff.
type DiffOptions struct {
	ApplyOptions
	// PendingKinds are kinds whose CRD the plan creates in an earlier
	// step; their objects show as CreatePending instead of failing.
	PendingKinds map[schema.GroupKind]bool
	// PendingNamespaces are namespaces the plan creates in an earlier
	// step; objects in them that do not exist yet show as
	// CreateInPendingNamespace.
	PendingNamespaces map[string]bool
}

// Diff dry-runs a server-side apply of objs (dryRun=All: nothing is
// written) and compares each merged result with the live object. Both
// sides drop server-owned fields and status, and Secret data and
// stringData are masked on both sides: a changed value shows as a changed
// mask, never its content.
func (a *Applier) Diff(ctx context.Context, objs []*unstructured.Unstructured, opts DiffOptions) ([]model.ObjectDiff, error) {
	var run []*unstructured.Unstructured
	out := make([]model.ObjectDiff, len(objs))
	index := make([]int, 0, len(objs))
	for i, o := range objs {
		out[i].Object = object.RefOf(o)
		if opts.PendingKinds[o.GroupVersionKind().GroupKind()] {
			if _, err := a.resource(o.DeepCopy()); meta.IsNoMatchError(unwrapMapping(err)) {
				out[i].Change = model.CreatePending
				out[i].Diff = unified(nil, o, a.opts.Masker)
				continue
			}
		}
		run = append(run, o)
		index = append(index, i)
	}
	opts.DryRun = true
	results, _ := a.Apply(ctx, run, opts.ApplyOptions)
	var errs []error
	for j, r := range results {
		i := index[j]
		if r.Err != nil {
			if apierrors.IsNotFound(r.Err) && opts.PendingNamespaces[run[j].GetNamespace()] {
				out[i].Change, out[i].Diff = model.CreateInPendingNamespace, unified(nil, run[j], a.opts.Masker)
				continue
			}
			errs = append(errs, r.Err)
			continue
		}
		switch {
		case r.Live == nil:
			out[i].Change, out[i].Diff = model.Create, unified(nil, r.Merged, a.opts.Masker)
		default:
			d := unified(r.Live, r.Merged, a.opts.Masker)
			out[i].Change, out[i].Diff = model.Update, d
			if d == "" {
				out[i].Change = model.NoChange
			} else {
				out[i].Fields = ChangedPaths(DiffNormalize(r.Live, a.opts.Masker), DiffNormalize(r.Merged, a.opts.Masker))
			}
		}
	}
	return out, errors.Join(errs...)
}

// unwrapMapping digs the mapper's error out of resource's wrapping.
func unwrapMapping(err error) error {
	for err != nil {
		if meta.IsNoMatchError(err) {
			return err
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
	return nil
}

// DiffNormalize returns a copy of o as object.Normalize sees it (no
// status, server-owned metadata or bookkeeping annotations), with Secret
// values masked by m.
func DiffNormalize(o *unstructured.Unstructured, m *secrets.Masker) map[string]any {
	c := diffNormalize(o)
	if c != nil && secrets.IsSecret(o.GetAPIVersion(), o.GetKind()) {
		m.Mask(c, o.GetNamespace()+"/"+o.GetName())
	}
	return c
}

// diffNormalize is DiffNormalize without masking: object.Normalize, the
// normaliser of template hashes and records too, so that the live and the
// offline diff agree on what is a change.
func diffNormalize(o *unstructured.Unstructured) map[string]any { return object.Normalize(o) }

// unified returns the unified diff of the normalised YAML of live and
// desired ("" when they are equal); a nil live diffs against nothing.
// Secret values are masked by m as a pair (secrets.Masker.MaskPair): in
// change-marker mode each desired value reads changed or unchanged.
func unified(live, desired *unstructured.Unstructured, m *secrets.Masker) string {
	var ref object.Ref
	if desired != nil {
		ref = object.RefOf(desired)
	} else {
		ref = object.RefOf(live)
	}
	l, d := diffNormalize(live), diffNormalize(desired)
	if secrets.IsSecret(ref.APIVersion, ref.Kind) {
		m.MaskPair(l, d, ref.Namespace+"/"+ref.Name)
	}
	return UnifiedDiff(ref, l, d)
}

// UnifiedDiff returns the unified diff of two object maps as YAML ("" when
// equal; a nil map is nothing). Callers mask Secrets first.
func UnifiedDiff(ref object.Ref, live, desired map[string]any) string {
	a, b := "", ""
	if live != nil {
		a = toYAML(live)
	}
	if desired != nil {
		b = toYAML(desired)
	}
	if a == b {
		return ""
	}
	lines := func(s string) []string {
		if s == "" {
			return nil
		}
		return difflib.SplitLines(s)
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(a), B: lines(b),
		FromFile: "live/" + ref.String(), ToFile: "desired/" + ref.String(), Context: 3,
	})
	if err != nil {
		return fmt.Sprintf("(diff failed: %v)", err)
	}
	return text
}

func toYAML(m map[string]any) string {
	data, err := yaml.Marshal(m)
	if err != nil {
		return fmt.Sprintf("(not representable: %v)", err)
	}
	return string(data)
}

// DeleteDiff returns the diff of deleting live, Secret values masked by m.
func DeleteDiff(live *unstructured.Unstructured, m *secrets.Masker) model.ObjectDiff {
	return model.ObjectDiff{Object: object.RefOf(live), Change: model.Delete, Diff: unified(live, nil, m)}
}
