package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/internal/object"
)

// ownersCRD is a CRD for the ownership and prune tests.
const ownersCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %s.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: %s, singular: %s, kind: %s}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

// TestCheckOwners declares, as app shop, a Namespace created outside
// roleout, a ConfigMap of app web, a ConfigMap of shop's own and a new
// one: the first two are refused, naming their owner, and an apply with
// Owner writes nothing over them; adopt (the app's or the object's)
// takes them over.
func TestCheckOwners(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	cs := clientset(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "owners-foreign"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := func(name, value string) *unstructured.Unstructured {
		return obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "+name+", namespace: default}\ndata: {v: '"+value+"'}\n")
	}
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{cm("owners-web", "web")}, ApplyOptions{Labels: map[string]string{"roleout.dev/app": "web"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{cm("owners-shop", "shop")}, ApplyOptions{Labels: map[string]string{"roleout.dev/app": "shop"}}); err != nil {
		t.Fatal(err)
	}
	ns := obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: owners-foreign}\n")
	// A kind no CRD serves yet: it cannot exist, so it is no refusal.
	pending := obj(t, "apiVersion: example.com/v1\nkind: Pending\nmetadata: {name: p, namespace: default}\n")
	objs := []*unstructured.Unstructured{ns, cm("owners-web", "shop"), cm("owners-shop", "shop2"), cm("owners-new", "shop"), pending}
	own := Ownership{Label: "roleout.dev/app", Value: "shop", AdoptField: "apps[1].adopt", AnnotationsField: "apps[1].allowedAnnotations"}

	err := a.CheckOwners(ctx, objs, own)
	var got []string
	for _, e := range unjoin(err) {
		got = append(got, e.Error())
	}
	want := []string{
		`Namespace/owners-foreign: exists without roleout's ownership (no label roleout.dev/app); apps[1].adopt: true or annotation roleout.dev/adopt: "true" on the object takes it over where apps[1].allowedAnnotations lists it`,
		`ConfigMap/default/owners-web: owned by app web (label roleout.dev/app=web); apps[1].adopt: true or annotation roleout.dev/adopt: "true" on the object takes it over where apps[1].allowedAnnotations lists it`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refusals (-want +got):\n%s", diff)
	}
	var oe *OwnershipError
	if !errors.As(err, &oe) || oe.Owner != "" || oe.Object.Kind != "Namespace" {
		t.Errorf("first refusal is not an OwnershipError of the Namespace: %#v", oe)
	}

	res, err := a.Apply(ctx, []*unstructured.Unstructured{cm("owners-web", "shop")}, ApplyOptions{Labels: map[string]string{"roleout.dev/app": "shop"}, Owner: own})
	if err == nil || res[0].Action != Failed || !errors.As(err, &oe) {
		t.Errorf("apply over web's ConfigMap: %v %v, want an OwnershipError", err, actions(res))
	}
	if live, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "owners-web", metav1.GetOptions{}); err != nil || live.Data["v"] != "web" || live.Labels["roleout.dev/app"] != "web" {
		t.Errorf("web's ConfigMap after a refused apply: %v %v %v, want it untouched", err, live.Data, live.Labels)
	}

	adopted := ns.DeepCopy()
	adopted.SetAnnotations(map[string]string{object.AdoptAnnotation: "true"})
	// Content cannot grant itself adoption: the annotation counts only
	// where the app's config honours it.
	err = a.CheckOwners(ctx, []*unstructured.Unstructured{adopted, cm("owners-web", "shop")}, own)
	if got := unjoin(err); len(got) != 2 {
		t.Errorf("with the Namespace annotated %s and the annotation not honoured, refusals %v; want both", object.AdoptAnnotation, got)
	}
	if res, err := a.Apply(ctx, []*unstructured.Unstructured{adopted}, ApplyOptions{Labels: map[string]string{"roleout.dev/app": "shop"}, Owner: own}); err == nil || res[0].Action != Failed {
		t.Errorf("apply of the annotated Namespace, not honoured: %v %v, want refused", err, actions(res))
	}
	honoured := own
	honoured.AdoptAnnotated = true
	err = a.CheckOwners(ctx, []*unstructured.Unstructured{adopted, cm("owners-web", "shop")}, honoured)
	if got := unjoin(err); len(got) != 1 || !strings.HasPrefix(got[0].Error(), "ConfigMap/default/owners-web:") {
		t.Errorf("with the Namespace annotated %s, honoured, refusals %v; want only web's ConfigMap", object.AdoptAnnotation, got)
	}
	own.Adopt = true
	if err := a.CheckOwners(ctx, objs, own); err != nil {
		t.Errorf("with adopt: %v", err)
	}
	res, err = a.Apply(ctx, []*unstructured.Unstructured{cm("owners-web", "shop")}, ApplyOptions{Labels: map[string]string{"roleout.dev/app": "shop"}, Owner: own})
	if err != nil || res[0].Action != Configured {
		t.Fatalf("adopting web's ConfigMap: %v %v", err, actions(res))
	}
	if live, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "owners-web", metav1.GetOptions{}); err != nil || live.Labels["roleout.dev/app"] != "shop" {
		t.Errorf("adopted ConfigMap: %v %v, want label roleout.dev/app=shop", err, live.Labels)
	}
}

// unjoin returns the errors errors.Join joined into err.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

// TestPrunePersistentKinds applies a Namespace, a CRD and a PVC as app
// shop and prunes them: kept with a reason unless the app opts in
// (Persistent) or the object does (roleout.dev/prune: "true") where the
// app honours that annotation (PruneAnnotated). A Namespace the app did
// not create is kept whatever the options.
func TestPrunePersistentKinds(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	objects := func(suffix, ann string) []*unstructured.Unstructured {
		meta := func(name, ns string) string {
			m := "{name: " + name
			if ns != "" {
				m += ", namespace: " + ns
			}
			if ann != "" {
				m += ", annotations: {roleout.dev/prune: '" + ann + "'}"
			}
			return m + "}"
		}
		plural, kind := "keeps"+suffix, "Keep"+strings.ToUpper(suffix)
		crd := strings.Replace(fmt.Sprintf(ownersCRD, plural, plural, plural, kind), "metadata: {name: "+plural+".example.com}", "metadata: "+meta(plural+".example.com", ""), 1)
		return []*unstructured.Unstructured{
			obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: "+meta("keep-"+suffix, "")+"\n"),
			obj(t, crd),
			obj(t, "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: "+meta("keep-"+suffix, "default")+"\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n"),
		}
	}
	cases := []struct {
		name, suffix, annotation string
		persistent, honoured     bool
		want                     Action
	}{
		{name: "kept by default", suffix: "a", want: Skipped},
		{name: "app opts in", suffix: "b", persistent: true, want: Deleted},
		{name: "object opts in where the app honours it", suffix: "c", annotation: "true", honoured: true, want: Deleted},
		{name: "object protected although the app opts in", suffix: "d", annotation: "false", persistent: true, want: Skipped},
		{name: "object opts in, the app does not honour it", suffix: "e", annotation: "true", want: Skipped},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := objects(tc.suffix, tc.annotation)
			own := Ownership{Label: "roleout.dev/app", Value: "shop"}
			if _, err := a.Apply(ctx, objs, ApplyOptions{Labels: map[string]string{"roleout.dev/app": "shop"}, Owner: own}); err != nil {
				t.Fatal(err)
			}
			refs := make([]object.Ref, len(objs))
			for i, o := range objs {
				refs[len(objs)-1-i] = object.RefOf(o)
			}
			opts := PruneOptions{OwnerLabel: "roleout.dev/app", OwnerValue: "shop", Persistent: tc.persistent, PruneAnnotated: tc.honoured,
				PersistentField: "apps[0].prunePersistent", AnnotationsField: "apps[0].allowedAnnotations", Timeout: time.Minute}
			res, err := a.Prune(ctx, refs, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				if r.Action != tc.want {
					t.Errorf("%s: %s (%s), want %s", r.Object, r.Action, r.Reason, tc.want)
				}
				if tc.want == Skipped && tc.annotation == "" {
					want := fmt.Sprintf(`a %s is not pruned unless the app opts in (set apps[0].prunePersistent: true or annotate it roleout.dev/prune: "true" `+
						`and list that annotation in apps[0].allowedAnnotations); left in the cluster`, r.Object.Kind)
					if r.Reason != want {
						t.Errorf("%s: reason %q, want %q", r.Object, r.Reason, want)
					}
				}
				live, err := a.Live(ctx, r.Object)
				if exists := err == nil && live != nil && live.GetDeletionTimestamp() == nil; exists != (tc.want == Skipped) {
					t.Errorf("%s exists after prune = %v (%v), want %v", r.Object, exists, err, tc.want == Skipped)
				}
			}
		})
	}
}

// TestPruneKeepsNamespacesTheAppDidNotCreate: a Namespace made by hand
// and labelled as the app's (as an adopting app leaves it), and one whose
// content names the app as its creator, are never pruned, even with
// prunePersistent; the one the app created is.
func TestPruneKeepsNamespacesTheAppDidNotCreate(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	cs := clientset(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "made-by-hand"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	own := Ownership{Label: "roleout.dev/app", Value: "shop", Adopt: true}
	objs := []*unstructured.Unstructured{
		obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: made-by-hand, annotations: {roleout.dev/created-by: shop}}\n"),
		obj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: made-by-shop}\n"),
	}
	if _, err := a.Apply(ctx, objs, ApplyOptions{Labels: map[string]string{"roleout.dev/app": "shop"}, Owner: own}); err != nil {
		t.Fatal(err)
	}
	opts := PruneOptions{OwnerLabel: "roleout.dev/app", OwnerValue: "shop", Persistent: true, Timeout: time.Minute}
	res, err := a.Prune(ctx, []object.Ref{object.RefOf(objs[0]), object.RefOf(objs[1])}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Action != Skipped || !strings.Contains(res[0].Reason, "did not create") {
		t.Errorf("the hand-made Namespace: %s (%s), want skipped as not created by the app", res[0].Action, res[0].Reason)
	}
	if res[1].Action != Deleted {
		t.Errorf("the app's Namespace: %s (%s), want deleted", res[1].Action, res[1].Reason)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "made-by-hand", metav1.GetOptions{}); err != nil {
		t.Errorf("the hand-made Namespace: %v", err)
	}
}

// TestApplyRefusesAScopeThePlanDidNot: an object of a kind the cluster
// serves cluster-scoped that still names a namespace (planning judged it
// namespaced) is refused by the applier itself, not created cluster-wide
// with its namespace dropped; and a namespaced kind without a namespace
// is refused too.
func TestApplyRefusesAScopeThePlanDidNot(t *testing.T) {
	a := newApplier(t)
	ctx := context.Background()
	objs := []*unstructured.Unstructured{
		obj(t, "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: scope-smuggled, namespace: default}\nvalue: 1000\n"),
		obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: scope-nowhere}\n"),
	}
	res, err := a.Apply(ctx, objs, ApplyOptions{Labels: map[string]string{"roleout.dev/app": "shop"}})
	var se *ScopeError
	if !errors.As(err, &se) || res[0].Action != Failed || res[1].Action != Failed {
		t.Fatalf("apply: %v %v, want two ScopeErrors", err, actions(res))
	}
	if !strings.Contains(res[0].Err.Error(), "the cluster serves kind PriorityClass cluster-scoped, but it was planned in namespace default") {
		t.Errorf("PriorityClass: %v", res[0].Err)
	}
	if _, err := clientset(t).SchedulingV1().PriorityClasses().Get(ctx, "scope-smuggled", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused PriorityClass: %v, want not found", err)
	}
	scopes, err := a.Scopes(ctx, []schema.GroupKind{{Group: "scheduling.k8s.io", Kind: "PriorityClass"}, {Kind: "ConfigMap"}, {Group: "nowhere.example.com", Kind: "Phantom"}})
	if err != nil || len(scopes) != 2 || scopes[schema.GroupKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"}] || !scopes[schema.GroupKind{Kind: "ConfigMap"}] {
		t.Errorf("Scopes = %v, %v; want PriorityClass cluster-scoped, ConfigMap namespaced, Phantom absent", scopes, err)
	}
}
