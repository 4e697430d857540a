package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// kustomizeMu serialises every use of kustomize: its OpenAPI schema is
// process-global state that builds read and may reset.
var kustomizeMu sync.Mutex

// Renderer runs kustomize builds. The zero value is ready to use.
type Renderer struct{}

// Build renders the kustomization in overlay (a slash-separated path
// relative to root, the repository's checkout) with load restrictions at
// the kustomization roots and plugins off. Errors name the overlay and
// carry kustomize's own message with root's path cut out.
func (Renderer) Build(ctx context.Context, root, overlay string) ([]*unstructured.Unstructured, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := filepath.Join(root, filepath.FromSlash(overlay))
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("kustomize build %s: directory not found in the repository", overlay)
	}
	objs, err := build(dir)
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), root+string(filepath.Separator), "")
		return nil, fmt.Errorf("kustomize build %s: %s", overlay, msg)
	}
	return objs, nil
}

func build(dir string) (objs []*unstructured.Unstructured, err error) {
	kustomizeMu.Lock()
	defer kustomizeMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kustomize panicked: %v", r)
		}
	}()
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsRootOnly
	opts.PluginConfig = types.DisabledPluginConfig()
	resMap, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, err
	}
	for _, res := range resMap.Resources() {
		// A JSON round trip gives the int64/float64 values unstructured
		// objects need (kustomize's maps hold plain ints).
		data, err := res.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", res.CurId(), err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("%s: %w", res.CurId(), err)
		}
		objs = append(objs, u)
	}
	return objs, nil
}

// DefaultNamespace sets namespace on every namespaced object that names
// none. Scope comes from Kubernetes' built-in OpenAPI schema, and for
// custom resources from a CustomResourceDefinition among objs; an object of
// an unknown kind is taken as namespaced, as kubectl does. It returns an
// error naming an object that sets a namespace on a cluster-scoped kind.
func DefaultNamespace(objs []*unstructured.Unstructured, namespace string) error {
	crdScope := map[string]bool{} // group/kind → namespaced
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" && strings.HasPrefix(o.GetAPIVersion(), "apiextensions.k8s.io/") {
			group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
			scope, _, _ := unstructured.NestedString(o.Object, "spec", "scope")
			crdScope[group+"/"+kind] = scope != "Cluster"
		}
	}
	kustomizeMu.Lock()
	defer kustomizeMu.Unlock()
	var errs []error
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		namespaced, found := crdScope[gvk.Group+"/"+gvk.Kind]
		if !found {
			namespaced, found = openapi.IsNamespaceScoped(kyaml.TypeMeta{APIVersion: o.GetAPIVersion(), Kind: o.GetKind()})
		}
		switch {
		case found && !namespaced && o.GetNamespace() != "":
			errs = append(errs, fmt.Errorf("%s: a %s is cluster-scoped and cannot name namespace %q", Describe(o), gvk.Kind, o.GetNamespace()))
		case (namespaced || !found) && o.GetNamespace() == "":
			o.SetNamespace(namespace)
		}
	}
	return errors.Join(errs...)
}

// Describe names an object as Kind/namespace/name, or Kind/name for a
// cluster-scoped one: the prefix of every error about an object.
func Describe(o *unstructured.Unstructured) string {
	if ns := o.GetNamespace(); ns != "" {
		return o.GetKind() + "/" + ns + "/" + o.GetName()
	}
	return o.GetKind() + "/" + o.GetName()
}
