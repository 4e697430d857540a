package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// fieldManager returns the field manager a call with opts applies as.
func (a *Applier) fieldManager(opts ApplyOptions) string {
	if opts.FieldManager != "" {
		return opts.FieldManager
	}
	return a.opts.FieldManager
}

// dryRunManager returns the manager a dry run of o applies as: the one
// whose fields it would inherit when live is not migrated yet, so that a
// diff shows the fields the real apply removes.
func dryRunManager(live *unstructured.Unstructured, opts ApplyOptions, manager string) string {
	if live == nil {
		return manager
	}
	entries := live.GetManagedFields()
	if slices.ContainsFunc(entries, func(e metav1.ManagedFieldsEntry) bool { return isApplyOf(e, manager) }) {
		return manager
	}
	for _, e := range entries {
		for _, from := range opts.Migrate {
			if isApplyOf(e, from) {
				return from
			}
		}
	}
	return manager
}

// isApplyOf reports whether e records an apply of the main resource by
// manager.
func isApplyOf(e metav1.ManagedFieldsEntry, manager string) bool {
	return e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == ""
}

// handOver returns entries with the apply entries of the managers in
// from (main resource, not subresources) given to manager to: renamed,
// or merged into to's own entry of the same API version, so every field
// they owned is owned by to and nothing is left to conflict or be
// orphaned. changed is false when from owns nothing. An entry of from
// with another API version than to's existing entry is left as it is.
func handOver(entries []metav1.ManagedFieldsEntry, from []string, to string) (out []metav1.ManagedFieldsEntry, changed bool, err error) {
	target := slices.IndexFunc(entries, func(e metav1.ManagedFieldsEntry) bool { return isApplyOf(e, to) })
	out = make([]metav1.ManagedFieldsEntry, 0, len(entries))
	var merged map[string]any
	for i, e := range entries {
		src := slices.ContainsFunc(from, func(m string) bool { return m != to && isApplyOf(e, m) })
		switch {
		case !src:
		case target < 0:
			// The first entry of from becomes to's.
			e.Manager, target, changed = to, i, true
		case entries[target].APIVersion == e.APIVersion:
			if merged, err = mergeFields(merged, e.FieldsV1); err != nil {
				return nil, false, fmt.Errorf("read managedFields of %s: %w", e.Manager, err)
			}
			changed = true
			continue
		}
		out = append(out, e)
	}
	if merged == nil {
		return out, changed, nil
	}
	for i := range out {
		if isApplyOf(out[i], to) {
			if merged, err = mergeFields(merged, out[i].FieldsV1); err != nil {
				return nil, false, fmt.Errorf("read managedFields of %s: %w", to, err)
			}
			raw, err := json.Marshal(merged)
			if err != nil {
				return nil, false, err
			}
			out[i].FieldsV1 = &metav1.FieldsV1{Raw: raw}
		}
	}
	return out, changed, nil
}

// mergeFields adds the field set f (FieldsV1: a tree of JSON objects) to
// into, returning it.
func mergeFields(into map[string]any, f *metav1.FieldsV1) (map[string]any, error) {
	if into == nil {
		into = map[string]any{}
	}
	if f == nil || len(f.Raw) == 0 {
		return into, nil
	}
	var tree map[string]any
	if err := json.Unmarshal(f.Raw, &tree); err != nil {
		return nil, err
	}
	unionTree(into, tree)
	return into, nil
}

// unionTree adds every path of b to a.
func unionTree(a, b map[string]any) {
	for k, bv := range b {
		am, aok := a[k].(map[string]any)
		bm, bok := bv.(map[string]any)
		if aok && bok {
			unionTree(am, bm)
			continue
		}
		if _, exists := a[k]; !exists {
			a[k] = bv
		}
	}
}

// migrateManagers hands the fields of opts.Migrate's managers in live
// over to manager with a JSON patch of managedFields, guarded by live's
// resourceVersion; a live object that changed meanwhile is read again,
// up to three times.
func (a *Applier) migrateManagers(ctx context.Context, ri dynamic.ResourceInterface, live *unstructured.Unstructured, opts ApplyOptions, manager string) error {
	for attempt := 0; ; attempt++ {
		entries, changed, err := handOver(live.GetManagedFields(), opts.Migrate, manager)
		if err != nil || !changed {
			return err
		}
		patch, err := json.Marshal([]map[string]any{
			{"op": "test", "path": "/metadata/resourceVersion", "value": live.GetResourceVersion()},
			{"op": "replace", "path": "/metadata/managedFields", "value": entries},
		})
		if err != nil {
			return err
		}
		_, err = ri.Patch(ctx, live.GetName(), types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: manager})
		if err == nil || attempt == 2 || !(apierrors.IsInvalid(err) || apierrors.IsConflict(err)) {
			if err != nil {
				return fmt.Errorf("hand fields over to field manager %s: %w", manager, err)
			}
			return nil
		}
		if live, err = ri.Get(ctx, live.GetName(), metav1.GetOptions{}); err != nil {
			return fmt.Errorf("hand fields over to field manager %s: read: %w", manager, err)
		}
	}
}
