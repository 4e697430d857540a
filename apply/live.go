package apply

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/roleout/roleout/internal/object"
)

// listThreshold is the number of objects of one resource in one namespace
// from which Apply reads them with one paged LIST instead of one GET each.
const listThreshold = 4

// ownListMisses is how many objects of one resource and namespace the
// owner's LIST (prefetch with a selector) may miss before the whole
// namespace is listed: below it, each missing one is read with a GET.
// An update finds every object in the owner's LIST; an install of a
// small app reads a few 404s instead of every object of a namespace
// that many apps share.
const ownListMisses = 32

// detail says how much of the live objects a read returns.
type detail int

const (
	// fullObjects reads whole objects (observations, diffs).
	fullObjects detail = iota
	// metadataOnly reads their metadata (apply): a much smaller answer
	// for the API server to encode and the client to decode.
	metadataOnly
)

// liveSet holds what one LIST per resource and namespace returned, so
// Apply knows each object's state before applying without a GET per
// object. An object of a group not listed is read with a GET.
type liveSet struct {
	detail  detail
	listed  map[string]bool                       // group key → listed
	objects map[string]*unstructured.Unstructured // group key + "/" + name → live
}

// lookup returns the live object and whether the set knows it: it was
// found, or its group was listed whole (then a missing object does not
// exist).
func (s *liveSet) lookup(group, name string) (*unstructured.Unstructured, bool) {
	if s == nil {
		return nil, false
	}
	if o, ok := s.objects[group+"/"+name]; ok {
		return o, true
	}
	return nil, s.listed[group]
}

// groupKey names an object's resource and namespace.
func (a *Applier) groupKey(o *unstructured.Unstructured) (string, bool) {
	gvk := o.GroupVersionKind()
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return "", false
	}
	ns := o.GetNamespace()
	if m.Scope.Name() == meta.RESTScopeNameRoot {
		ns = ""
	}
	return m.Resource.String() + "|" + ns, true
}

// prefetch lists, with paging, every resource and namespace that holds at
// least listThreshold of objs, in detail d. With owner (a label selector,
// "roleout.dev/app=web") it first lists the owner's objects only, and the
// whole namespace only when that LIST misses ownListMisses of objs or
// more: in a namespace many apps share, an app reads its own objects, not
// everyone's. Errors leave the group to per-object GETs.
func (a *Applier) prefetch(ctx context.Context, objs []*unstructured.Unstructured, d detail, owner string) *liveSet {
	names := map[string][]string{}
	first := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if k, ok := a.groupKey(o); ok {
			names[k] = append(names[k], o.GetName())
			if first[k] == nil {
				first[k] = o
			}
		}
	}
	set := &liveSet{detail: d, listed: map[string]bool{}, objects: map[string]*unstructured.Unstructured{}}
	for k, group := range names {
		if len(group) < listThreshold {
			continue
		}
		if owner != "" {
			items, err := a.list(ctx, first[k].DeepCopy(), d, owner)
			if err == nil {
				for _, o := range items {
					set.objects[k+"/"+o.GetName()] = o
				}
				missed := 0
				for _, name := range group {
					if _, ok := set.objects[k+"/"+name]; !ok {
						missed++
					}
				}
				if missed < ownListMisses {
					continue
				}
			}
		}
		items, err := a.list(ctx, first[k].DeepCopy(), d, "")
		if err != nil {
			continue
		}
		set.listed[k] = true
		for _, o := range items {
			set.objects[k+"/"+o.GetName()] = o
		}
	}
	return set
}

// list reads, 500 at a time, every object of o's resource in o's
// namespace that selector selects ("" for all), in detail d.
func (a *Applier) list(ctx context.Context, o *unstructured.Unstructured, d detail, selector string) ([]*unstructured.Unstructured, error) {
	page, err := a.pager(o, d)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	opts := metav1.ListOptions{Limit: 500, LabelSelector: selector}
	for {
		items, cont, err := page(ctx, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if opts.Continue = cont; cont == "" {
			return out, nil
		}
	}
}

// pageFunc reads one page of a LIST: its objects and the continue token.
type pageFunc func(context.Context, metav1.ListOptions) ([]*unstructured.Unstructured, string, error)

// pager returns the pageFunc of o's resource and namespace in detail d.
func (a *Applier) pager(o *unstructured.Unstructured, d detail) (pageFunc, error) {
	if d == fullObjects {
		ri, err := a.resource(o)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, opts metav1.ListOptions) ([]*unstructured.Unstructured, string, error) {
			list, err := ri.List(ctx, opts)
			if err != nil {
				return nil, "", err
			}
			out := make([]*unstructured.Unstructured, len(list.Items))
			for i := range list.Items {
				out[i] = &list.Items[i]
			}
			return out, list.GetContinue(), nil
		}, nil
	}
	ri, err := a.metadataResource(o)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, opts metav1.ListOptions) ([]*unstructured.Unstructured, string, error) {
		list, err := ri.List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		out := make([]*unstructured.Unstructured, len(list.Items))
		for i := range list.Items {
			if out[i], err = metadataObject(&list.Items[i]); err != nil {
				return nil, "", err
			}
		}
		return out, list.Continue, nil
	}, nil
}

// getMetadata reads o's live metadata.
func (a *Applier) getMetadata(ctx context.Context, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ri, err := a.metadataResource(o)
	if err != nil {
		return nil, err
	}
	m, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return metadataObject(m)
}

// metadataObject turns a metadata read into an object with only its
// kind and metadata.
func metadataObject(m *metav1.PartialObjectMetadata) (*unstructured.Unstructured, error) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(m)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// Live returns the live object ref names, or nil when it does not exist.
func (a *Applier) Live(ctx context.Context, ref object.Ref) (*unstructured.Unstructured, error) {
	ri, err := a.resource(ref.Empty())
	if err != nil {
		return nil, err
	}
	live, err := ri.Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return live, err
}

// ownerSelector is the label selector of the objects labels marks as an
// app's (object.AppLabel), or "" when it marks none.
func ownerSelector(labels map[string]string) string {
	if v := labels[object.AppLabel]; v != "" {
		return object.AppLabel + "=" + v
	}
	return ""
}
