package apply

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/roleout/roleout/internal/object"
)

// ErrNotObserved says the workload's controller has not yet processed
// the workload's latest generation; observe again later.
var ErrNotObserved = errors.New("the controller has not observed the latest generation yet")

var (
	replicaSets         = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	controllerRevisions = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "controllerrevisions"}
)

// Observe reads the identity o's controller gave o's current template:
// a Deployment's new ReplicaSet, a StatefulSet's update revision, a
// DaemonSet's current ControllerRevision hash, a LeaderWorkerSet's
// template-revision-hash, a StormService's update revision and the
// role-template-hash of each of its roles. It returns ErrNotObserved while the controller
// lags behind the latest generation, and an error for other kinds.
func (a *Applier) Observe(ctx context.Context, o *unstructured.Unstructured) (object.Identity, error) {
	r := a.ObserveAll(ctx, []*unstructured.Unstructured{o})[object.RefOf(o)]
	return r.Observed, r.Err
}

// ObserveResult is one workload's observation, or why there is none.
type ObserveResult struct {
	Observed object.Identity
	Err      error
}

// ObserveAll observes every workload in objs, reading each kind's
// objects, ReplicaSets and ControllerRevisions with one LIST per namespace
// where it can, instead of requests per workload.
func (a *Applier) ObserveAll(ctx context.Context, objs []*unstructured.Unstructured) map[object.Ref]ObserveResult {
	live := a.prefetch(ctx, objs, fullObjects, "")
	ob := &observer{a: a, lists: map[string][]unstructured.Unstructured{}}
	out := make(map[object.Ref]ObserveResult, len(objs))
	for _, o := range objs {
		obs, err := ob.observe(ctx, o, live)
		out[object.RefOf(o)] = ObserveResult{Observed: obs, Err: err}
	}
	return out
}

// observer memoises the lists one round of observations reads.
type observer struct {
	a     *Applier
	lists map[string][]unstructured.Unstructured
}

// list returns the objects of gvr in ns, listed once per round.
func (ob *observer) list(ctx context.Context, gvr schema.GroupVersionResource, ns string) ([]unstructured.Unstructured, error) {
	key := gvr.String() + "|" + ns
	if items, ok := ob.lists[key]; ok {
		return items, nil
	}
	l, err := ob.a.client.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	ob.lists[key] = l.Items
	return l.Items, nil
}

func (ob *observer) observe(ctx context.Context, o *unstructured.Unstructured, set *liveSet) (object.Identity, error) {
	ri, err := ob.a.resource(o.DeepCopy())
	if err != nil {
		return object.Identity{}, err
	}
	live, err := ob.a.before(ctx, ri, o, set)
	if err != nil {
		return object.Identity{}, fmt.Errorf("%s: read: %w", object.RefOf(o), err)
	}
	if live == nil {
		return object.Identity{}, fmt.Errorf("%s: not found", object.RefOf(o))
	}
	observe, ok := observers[live.GroupVersionKind().GroupKind().String()]
	if !ok {
		return object.Identity{}, fmt.Errorf("%s: no observation for kind %s", object.RefOf(o), live.GroupVersionKind())
	}
	return observe(ob, ctx, live)
}

// observers reads, per group/kind, the identity a workload's controller
// gave its current template. It has the kinds of render/predict's
// predictors table: adding a workload kind is an entry in each
// (render/predict/doc.go).
var observers = map[string]func(ob *observer, ctx context.Context, live *unstructured.Unstructured) (object.Identity, error){
	"Deployment.apps":                          (*observer).deployment,
	"StatefulSet.apps":                         (*observer).statefulSet,
	"DaemonSet.apps":                           (*observer).daemonSet,
	"LeaderWorkerSet.leaderworkerset.x-k8s.io": (*observer).leaderWorkerSet,
	"StormService.orchestration.aibrix.ai":     (*observer).stormService,
}

// Observes reports whether ObserveAll reads o's kind: the kinds whose
// identities roleout predicts (predict.IsWorkloadKind; a test holds the
// two lists equal).
func Observes(o *unstructured.Unstructured) bool {
	_, ok := observers[o.GroupVersionKind().GroupKind().String()]
	return ok
}

// ObservedKinds returns the group/kinds ("Deployment.apps") ObserveAll
// reads, sorted.
func ObservedKinds() []string {
	return slices.Sorted(maps.Keys(observers))
}

// statefulSet reads the StatefulSet's update revision from its status.
func (ob *observer) statefulSet(_ context.Context, live *unstructured.Unstructured) (object.Identity, error) {
	var s appsv1.StatefulSet
	if err := fromUnstructured(live, &s); err != nil {
		return object.Identity{}, err
	}
	if s.Status.ObservedGeneration < s.Generation || s.Status.UpdateRevision == "" {
		return object.Identity{}, ErrNotObserved
	}
	return object.Identity{ControllerRevisionName: s.Status.UpdateRevision}, nil
}

// deployment finds the ReplicaSet the Deployment counts as new: the one
// owned by it whose revision annotation is the Deployment's.
func (ob *observer) deployment(ctx context.Context, live *unstructured.Unstructured) (object.Identity, error) {
	var d appsv1.Deployment
	if err := fromUnstructured(live, &d); err != nil {
		return object.Identity{}, err
	}
	const revisionAnnotation = "deployment.kubernetes.io/revision"
	if d.Status.ObservedGeneration < d.Generation || d.Annotations[revisionAnnotation] == "" {
		return object.Identity{}, ErrNotObserved
	}
	items, err := ob.list(ctx, replicaSets, d.Namespace)
	if err != nil {
		return object.Identity{}, fmt.Errorf("Deployment/%s/%s: list ReplicaSets: %w", d.Namespace, d.Name, err)
	}
	for _, rs := range items {
		if ownedBy(&rs, d.UID) && rs.GetAnnotations()[revisionAnnotation] == d.Annotations[revisionAnnotation] {
			return object.Identity{PodTemplateHash: rs.GetLabels()[appsv1.DefaultDeploymentUniqueLabelKey], ReplicaSetName: rs.GetName()}, nil
		}
	}
	return object.Identity{}, ErrNotObserved
}

// daemonSet finds the DaemonSet's current ControllerRevision: the owned
// one with the highest revision number.
func (ob *observer) daemonSet(ctx context.Context, live *unstructured.Unstructured) (object.Identity, error) {
	var ds appsv1.DaemonSet
	if err := fromUnstructured(live, &ds); err != nil {
		return object.Identity{}, err
	}
	if ds.Status.ObservedGeneration < ds.Generation {
		return object.Identity{}, ErrNotObserved
	}
	items, err := ob.list(ctx, controllerRevisions, ds.Namespace)
	if err != nil {
		return object.Identity{}, fmt.Errorf("DaemonSet/%s/%s: list ControllerRevisions: %w", ds.Namespace, ds.Name, err)
	}
	best := newestOwned(items, ds.UID)
	if best == nil {
		return object.Identity{}, ErrNotObserved
	}
	return object.Identity{ControllerRevisionHash: best.GetLabels()[appsv1.DefaultDaemonSetUniqueLabelKey]}, nil
}

// leaderWorkerSet reads the template-revision-hash of the
// LeaderWorkerSet's newest ControllerRevision.
func (ob *observer) leaderWorkerSet(ctx context.Context, live *unstructured.Unstructured) (object.Identity, error) {
	const hashLabel = "leaderworkerset.sigs.k8s.io/template-revision-hash"
	items, err := ob.list(ctx, controllerRevisions, live.GetNamespace())
	if err != nil {
		return object.Identity{}, fmt.Errorf("%s: list ControllerRevisions: %w", object.RefOf(live), err)
	}
	best := newestOwned(items, live.GetUID())
	if best == nil {
		return object.Identity{}, ErrNotObserved
	}
	return object.Identity{TemplateRevisionHash: best.GetLabels()[hashLabel]}, nil
}

var (
	stormRoleSets = schema.GroupVersionResource{Group: "orchestration.aibrix.ai", Version: "v1alpha1", Resource: "rolesets"}
	stormPodSets  = schema.GroupVersionResource{Group: "orchestration.aibrix.ai", Version: "v1alpha1", Resource: "podsets"}
	pods          = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// stormService reads the StormService's update revision from its status
// and each role's role-template-hash from the labels the aibrix RoleSet
// controller puts on the pods (and PodSets) of the RoleSets at that
// revision. It waits until every role with replicas has one; a role
// scaled to 0 has no pods, so nothing to read.
func (ob *observer) stormService(ctx context.Context, live *unstructured.Unstructured) (object.Identity, error) {
	gen, _, _ := unstructured.NestedInt64(live.Object, "status", "observedGeneration")
	rev, _, _ := unstructured.NestedString(live.Object, "status", "updateRevision")
	if gen < live.GetGeneration() || rev == "" {
		return object.Identity{}, ErrNotObserved
	}
	roleSets, err := ob.list(ctx, stormRoleSets, live.GetNamespace())
	if err != nil {
		return object.Identity{}, fmt.Errorf("%s: list RoleSets: %w", object.RefOf(live), err)
	}
	current := map[string]bool{}
	for i := range roleSets {
		if ownedBy(&roleSets[i], live.GetUID()) && roleSets[i].GetLabels()["storm-service-revision"] == rev {
			current[roleSets[i].GetName()] = true
		}
	}
	want, groups := stormRoles(live)
	sources := []schema.GroupVersionResource{pods}
	if groups {
		sources = append(sources, stormPodSets)
	}
	hashes := map[string]string{}
	for _, gvr := range sources {
		items, err := ob.list(ctx, gvr, live.GetNamespace())
		if err != nil {
			return object.Identity{}, fmt.Errorf("%s: list %s: %w", object.RefOf(live), gvr.Resource, err)
		}
		for _, it := range items {
			l := it.GetLabels()
			if current[l["roleset-name"]] && l["role-template-hash"] != "" {
				hashes[l["role-name"]] = l["role-template-hash"]
			}
		}
	}
	for _, role := range want {
		if hashes[role] == "" {
			return object.Identity{}, ErrNotObserved
		}
	}
	return object.Identity{ControllerRevisionName: rev, RoleTemplateHashes: hashes}, nil
}

// stormRoles returns the StormService's roles that have replicas, and
// whether any runs pod groups (PodSets).
func stormRoles(live *unstructured.Unstructured) (withReplicas []string, groups bool) {
	if n, _, _ := unstructured.NestedInt64(live.Object, "spec", "replicas"); n == 0 {
		return nil, false
	}
	roles, _, _ := unstructured.NestedSlice(live.Object, "spec", "template", "spec", "roles")
	for _, r := range roles {
		role, _ := r.(map[string]any)
		name, _, _ := unstructured.NestedString(role, "name")
		if n, _, _ := unstructured.NestedInt64(role, "replicas"); n > 0 {
			withReplicas = append(withReplicas, name)
		}
		if size, _, _ := unstructured.NestedInt64(role, "podGroupSize"); size > 1 {
			groups = true
		}
	}
	return withReplicas, groups
}

// newestOwned returns the ControllerRevision with the highest revision
// number among those owned by uid, or nil.
func newestOwned(items []unstructured.Unstructured, uid types.UID) *unstructured.Unstructured {
	var best *unstructured.Unstructured
	var bestRev int64 = -1
	for i := range items {
		cr := &items[i]
		rev, _, _ := unstructured.NestedInt64(cr.Object, "revision")
		if ownedBy(cr, uid) && rev > bestRev {
			best, bestRev = cr, rev
		}
	}
	return best
}

func ownedBy(o *unstructured.Unstructured, uid types.UID) bool {
	for _, ref := range o.GetOwnerReferences() {
		if ref.UID == uid && ref.Controller != nil && *ref.Controller {
			return true
		}
	}
	return false
}

func fromUnstructured(u *unstructured.Unstructured, out any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		return fmt.Errorf("%s: decode: %w", object.RefOf(u), err)
	}
	return nil
}

// collisionCount reads status.collisionCount of a live workload.
func collisionCount(live *unstructured.Unstructured) *int32 {
	n, found, err := unstructured.NestedInt64(live.Object, "status", "collisionCount")
	if !found || err != nil {
		return nil
	}
	c := int32(n)
	return &c
}

// CollisionCounts returns the live status.collisionCount of each object
// in objs that has one, reading them with one LIST per kind and
// namespace where it can.
func (a *Applier) CollisionCounts(ctx context.Context, objs []*unstructured.Unstructured) map[object.Ref]*int32 {
	live := a.prefetch(ctx, objs, fullObjects, "")
	out := map[object.Ref]*int32{}
	for _, o := range objs {
		ri, err := a.resource(o.DeepCopy())
		if err != nil {
			continue
		}
		if got, err := a.before(ctx, ri, o, live); err == nil && got != nil {
			if cc := collisionCount(got); cc != nil {
				out[object.RefOf(o)] = cc
			}
		}
	}
	return out
}

// CRDFor returns the CustomResourceDefinition that serves o's kind, or
// nil when the kind is built in or not installed.
func (a *Applier) CRDFor(ctx context.Context, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	gvk := o.GroupVersionKind()
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, nil
	}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	crd, err := a.client.Resource(crds).Get(ctx, m.Resource.Resource+"."+m.Resource.Group, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return crd, err
}

var events = schema.GroupVersionResource{Version: "v1", Resource: "events"}
