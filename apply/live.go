package apply

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// listThreshold is the number of objects of one resource in one namespace
// from which Apply reads them with one paged LIST instead of one GET each.
const listThreshold = 4

// liveSet holds what one LIST per resource and namespace returned, so
// Apply knows each object's state before applying without a GET per
// object. An object of a group not listed is read with a GET.
type liveSet struct {
	listed  map[string]bool                       // group key → listed
	objects map[string]*unstructured.Unstructured // group key + "/" + name → live
}

// lookup returns the live object and whether its group was listed.
func (s *liveSet) lookup(group, name string) (*unstructured.Unstructured, bool) {
	if s == nil || !s.listed[group] {
		return nil, false
	}
	return s.objects[group+"/"+name], true
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
// least listThreshold of objs. Errors leave the group to per-object GETs.
func (a *Applier) prefetch(ctx context.Context, objs []*unstructured.Unstructured) *liveSet {
	count := map[string]int{}
	first := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if k, ok := a.groupKey(o); ok {
			count[k]++
			if first[k] == nil {
				first[k] = o
			}
		}
	}
	set := &liveSet{listed: map[string]bool{}, objects: map[string]*unstructured.Unstructured{}}
	for k, n := range count {
		if n < listThreshold {
			continue
		}
		ri, err := a.resource(first[k].DeepCopy())
		if err != nil {
			continue
		}
		items := map[string]*unstructured.Unstructured{}
		opts := metav1.ListOptions{Limit: 500}
		ok := true
		for {
			list, err := ri.List(ctx, opts)
			if err != nil {
				ok = false
				break
			}
			for i := range list.Items {
				items[k+"/"+list.Items[i].GetName()] = &list.Items[i]
			}
			if opts.Continue = list.GetContinue(); opts.Continue == "" {
				break
			}
		}
		if ok {
			set.listed[k] = true
			for name, o := range items {
				set.objects[name] = o
			}
		}
	}
	return set
}
