package apply

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/roleout/roleout/internal/object"
)

// WatchEvent is a change to the metadata of one watched object.
type WatchEvent struct {
	Object object.Ref
	// Meta is the object's metadata now; nil when it was deleted or no
	// longer matches the selector.
	Meta *metav1.PartialObjectMetadata
}

// watchKey is one informer: a resource in a namespace ("" for
// cluster-scoped kinds).
type watchKey struct {
	gvr       schema.GroupVersionResource
	namespace string
}

// Watch lists, then watches, the metadata of refs (metadata-only: one
// informer per resource and namespace, restricted to objects that match
// the label selector) and calls handle for each object as first listed
// and on every change; objects the informers see that refs does not name
// are ignored. Watch returns once every informer has listed; the
// informers stream until stop is called or ctx ends. An idle watch sends
// no request. handle may be called from several goroutines at once.
func (a *Applier) Watch(ctx context.Context, refs []object.Ref, selector string, handle func(WatchEvent)) (stop func(), err error) {
	// named holds, by informer, the refs it serves by name.
	named := map[watchKey]map[string]object.Ref{}
	for _, ref := range refs {
		o := ref.Empty()
		m, err := a.mapping(o)
		if err != nil {
			return nil, err
		}
		ns := ref.Namespace
		if m.Scope.Name() == meta.RESTScopeNameRoot {
			ns = ""
		}
		k := watchKey{m.Resource, ns}
		if named[k] == nil {
			named[k] = map[string]object.Ref{}
		}
		named[k][ref.Name] = ref
	}
	wctx, cancel := context.WithCancel(ctx)
	var synced []cache.InformerSynced
	for k, byName := range named {
		inf := metadatainformer.NewFilteredMetadataInformer(a.meta, k.gvr, k.namespace, 0, cache.Indexers{},
			func(o *metav1.ListOptions) { o.LabelSelector = selector }).Informer()
		deliver := func(obj any, deleted bool) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj, deleted = d.Obj, true
			}
			m, ok := obj.(*metav1.PartialObjectMetadata)
			if !ok {
				return
			}
			ref, ok := byName[m.Name]
			if !ok {
				return
			}
			if deleted {
				m = nil
			}
			handle(WatchEvent{Object: ref, Meta: m})
		}
		if err := inf.SetTransform(slimMetadata); err != nil {
			cancel()
			return nil, fmt.Errorf("watch %s: %w", k.gvr, err)
		}
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { deliver(obj, false) },
			UpdateFunc: func(_, obj any) { deliver(obj, false) },
			DeleteFunc: func(obj any) { deliver(obj, true) },
		})
		if err != nil {
			cancel()
			return nil, fmt.Errorf("watch %s: %w", k.gvr, err)
		}
		go inf.RunWithContext(wctx)
		// Synced once the handler has seen every listed object.
		synced = append(synced, reg.HasSynced)
	}
	if !cache.WaitForCacheSync(wctx.Done(), synced...) {
		cancel()
		return nil, fmt.Errorf("watch the app's objects: %w", context.Cause(ctx))
	}
	return cancel, nil
}

// slimMetadata keeps, of a watched object, only what drift needs: its
// name, namespace, version and the managedFields entries of the main
// resource and its scale subresource (status entries own no field roleout
// applies). Labels, annotations (a last-applied-configuration can be as
// big as the object) and the rest are dropped, so the informers' cache of
// thousands of objects stays small.
func slimMetadata(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	slim := &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Name: m.Name, Namespace: m.Namespace, ResourceVersion: m.ResourceVersion, UID: m.UID,
	}}
	for _, e := range m.ManagedFields {
		if e.Subresource == "" || e.Subresource == "scale" {
			slim.ManagedFields = append(slim.ManagedFields, e)
		}
	}
	return slim, nil
}
