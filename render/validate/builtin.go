package validate

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/client-go/applyconfigurations"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/api/pod"
	apps "k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install" // apps internal and v1 types, defaulters, conversions, declarative validation
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	_ "k8s.io/kubernetes/pkg/apis/batch/install" // batch internal and v1 types, defaulters, conversions, declarative validation
	core "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // core internal and v1 types, defaulters, conversions, declarative validation
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/roleout/roleout/render/schema"
)

// crdKind is the kind of a CustomResourceDefinition.
var crdKind = runtimeschema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// applyTypes is server-side apply's schema of the Kubernetes kinds: the
// OpenAPI of Kubernetes v1.37.2 as client-go v0.37.2 carries it for
// apply configurations, read once, when first needed.
var applyTypes = sync.OnceValue(func() managedfields.TypeConverter {
	return applyconfigurations.NewTypeConverter(clientscheme.Scheme)
})

// builtinKind reports whether gvk is a kind Kubernetes v1.37.2 serves:
// client-go v0.37.2 has its type, and the type was not removed by then
// (the API server serves no kind whose type says it was removed in its
// release or earlier: apps/v1beta1 Deployments, removed in 1.16).
func builtinKind(gvk runtimeschema.GroupVersionKind) bool {
	if !clientscheme.Scheme.Recognizes(gvk) {
		return false
	}
	obj, err := clientscheme.Scheme.New(gvk)
	if err != nil {
		return false
	}
	lifecycle, ok := obj.(interface{ APILifecycleRemoved() (major, minor int) })
	if !ok {
		return true
	}
	major, minor := lifecycle.APILifecycleRemoved()
	k := utilversion.MustParseGeneric(schema.KubernetesVersion)
	return major == 0 && minor == 0 || uint(major) > k.Major() || uint(major) == k.Major() && uint(minor) > k.Minor()
}

// unservedBuiltin says why the API server has no gvk when gvk is in a
// group of Kubernetes v1.37.2 that does not serve that kind at that
// version (apps/v1beta1, a removed version); "" otherwise.
func unservedBuiltin(gvk runtimeschema.GroupVersionKind) string {
	if !clientscheme.Scheme.IsGroupRegistered(gvk.Group) {
		return ""
	}
	var served []string
	for known := range clientscheme.Scheme.AllKnownTypes() {
		if known.Group == gvk.Group && known.Kind == gvk.Kind && builtinKind(known) {
			served = append(served, known.GroupVersion().String())
		}
	}
	slices.Sort(served)
	if len(served) == 0 {
		return fmt.Sprintf("Unsupported value: %q: Kubernetes %s has no kind %s in this group", gvk.GroupVersion(), schema.KubernetesVersion, gvk.Kind)
	}
	return fmt.Sprintf("Unsupported value: %q: Kubernetes %s serves %s as %s", gvk.GroupVersion(), schema.KubernetesVersion, gvk.Kind, strings.Join(served, ", "))
}

// createStrategies are the API server's create strategies of the kinds
// roleout validates in full: decoded, defaulted, prepared for create and
// validated by the registry code of Kubernetes v1.37.2, with its
// declarative validation. The apps kinds use their registry's own
// Strategy; the core kinds' registries pull in etcd, so theirs are
// written here around the same validation functions, as are the
// ReplicaSet's and the Pod's (a Service is not among them: its registry
// allocates cluster IPs before it validates; nor is a Job: its registry
// makes the selector from the object's UID, which a create assigns).
var createStrategies = map[runtimeschema.GroupKind]rest.RESTCreateStrategy{
	{Group: "apps", Kind: "Deployment"}:  deployment.Strategy,
	{Group: "apps", Kind: "StatefulSet"}: statefulset.Strategy,
	{Group: "apps", Kind: "DaemonSet"}:   daemonset.Strategy,
	{Group: "apps", Kind: "ReplicaSet"}: strategyOf(true, func(o runtime.Object) field.ErrorList {
		rs := o.(*apps.ReplicaSet)
		rs.Status, rs.Generation = apps.ReplicaSetStatus{}, 1
		pod.DropDisabledTemplateFields(&rs.Spec.Template, nil)
		return appsvalidation.ValidateReplicaSet(rs, pod.GetValidationOptionsFromPodTemplate(&rs.Spec.Template, nil))
	}),
	{Group: "batch", Kind: "CronJob"}: cronjob.Strategy,
	{Kind: "Pod"}: strategyOf(true, func(o runtime.Object) field.ErrorList {
		// The pod registry's PrepareForCreate, for what validation reads
		// (its registry package pulls in etcd).
		p := o.(*core.Pod)
		p.Generation, p.Status = 1, core.PodStatus{Phase: core.PodPending}
		pod.DropDisabledPodFields(p, nil)
		pod.DefaultPodLevelResources(p)
		opts := pod.GetValidationOptionsFromPodSpecAndMeta(&p.Spec, nil, &p.ObjectMeta, nil)
		opts.ResourceIsPod = true
		return corevalidation.ValidatePodCreate(p, opts)
	}),
	{Kind: "ConfigMap"}: strategyOf(true, func(o runtime.Object) field.ErrorList {
		return corevalidation.ValidateConfigMap(o.(*core.ConfigMap))
	}),
	{Kind: "Secret"}: strategyOf(true, func(o runtime.Object) field.ErrorList {
		return corevalidation.ValidateSecret(o.(*core.Secret))
	}),
	{Kind: "ServiceAccount"}: strategyOf(true, func(o runtime.Object) field.ErrorList {
		return corevalidation.ValidateServiceAccount(o.(*core.ServiceAccount))
	}),
	{Kind: "Namespace"}: strategyOf(false, func(o runtime.Object) field.ErrorList {
		return corevalidation.ValidateNamespace(o.(*core.Namespace))
	}),
}

// createStrategy is the create strategy of a kind whose registry
// package roleout does not link (it pulls in etcd): validate prepares
// the object as the registry's PrepareForCreate does, where that changes
// what validation sees, and calls the registry's validation.
type createStrategy struct {
	rest.DeclarativeValidation
	names.NameGenerator
	namespaced bool
	validate   func(runtime.Object) field.ErrorList
}

func strategyOf(namespaced bool, validate func(runtime.Object) field.ErrorList) createStrategy {
	return createStrategy{rest.DeclarativeValidation{Scheme: legacyscheme.Scheme}, names.SimpleNameGenerator, namespaced, validate}
}

func (s createStrategy) NamespaceScoped() bool                          { return s.namespaced }
func (createStrategy) PrepareForCreate(context.Context, runtime.Object) {}
func (s createStrategy) Validate(_ context.Context, o runtime.Object) field.ErrorList {
	return s.validate(o)
}
func (createStrategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (createStrategy) Canonicalize(runtime.Object)                               {}

// validateBuiltin checks o, of a Kubernetes kind: server-side apply's
// type check first (the API server stops there when it fails), then the
// kind's create validation, or its metadata's for a kind not in
// createStrategies.
func validateBuiltin(o *unstructured.Unstructured) []FieldError {
	if errs := applyTypeErrors(o); len(errs) > 0 {
		return sortErrors(errs)
	}
	if strategy, ok := createStrategies[o.GroupVersionKind().GroupKind()]; ok {
		return sortErrors(createErrors(o, strategy))
	}
	return sortErrors(metadataErrors(o))
}

// valueDump matches how structured-merge-diff prints a value it did not
// expect: a Go dump of its value type.
var valueDump = regexp.MustCompile(`&(?:value\.valueUnstructured)?\{(?:Value:)?(.*)\}$`)

// applyTypeErrors is what server-side apply says of o before anything
// else: every field the kind's schema does not declare, every value of
// the wrong type, every two entries of a keyed list with one key.
func applyTypeErrors(o *unstructured.Unstructured) []FieldError {
	_, err := applyTypes().ObjectToTyped(o)
	if err == nil {
		return nil
	}
	var verrs typed.ValidationErrors
	if !errors.As(err, &verrs) {
		return []FieldError{{Reason: err.Error()}}
	}
	out := make([]FieldError, 0, len(verrs))
	for _, e := range verrs {
		reason := valueDump.ReplaceAllString(e.ErrorMessage, "$1")
		if reason == "field not declared in schema" {
			reason = "unknown field: Kubernetes " + schema.KubernetesVersion + " has no such field"
		}
		out = append(out, FieldError{Field: strings.TrimPrefix(e.Path, "."), Reason: reason})
	}
	return out
}

// createErrors is the create validation of o by strategy: o decoded and
// defaulted into the internal type as the API server decodes it, in the
// namespace of the request (default, when o names none; none for a
// cluster-scoped kind), prepared for create and validated.
func createErrors(o *unstructured.Unstructured, strategy rest.RESTCreateStrategy) []FieldError {
	u := o.DeepCopy()
	switch {
	case !strategy.NamespaceScoped():
		u.SetNamespace("")
	case u.GetNamespace() == "":
		u.SetNamespace(metav1.NamespaceDefault)
	}
	data, err := u.MarshalJSON()
	if err != nil {
		return []FieldError{{Reason: err.Error()}}
	}
	gvk := u.GroupVersionKind()
	internal := runtimeschema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal}
	obj, _, err := legacyscheme.Codecs.UniversalDecoder(internal).Decode(data, nil, nil)
	if err != nil {
		return []FieldError{{Reason: "cannot be decoded: " + err.Error()}}
	}
	// The strategies take a context for the request; these look at
	// nothing in it but what a create request carries, and do no I/O, so
	// validation stays a pure function.
	ctx := genericapirequest.WithNamespace(context.TODO(), u.GetNamespace())
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIGroup: gvk.Group, APIVersion: gvk.Version,
		Namespace: u.GetNamespace(), Name: u.GetName(),
	})
	strategy.PrepareForCreate(ctx, obj)
	return fieldErrors(rest.ValidateCreate(ctx, obj, strategy))
}

// metadataErrors validates o's metadata as the API server validates
// every object's: labels, annotations, finalizers, owner references and
// a name that can be a path segment. Its namespace is the request's.
func metadataErrors(o *unstructured.Unstructured) []FieldError {
	raw, _ := o.Object["metadata"].(map[string]any)
	var meta metav1.ObjectMeta
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &meta); err != nil {
		return []FieldError{{Field: "metadata", Reason: err.Error()}}
	}
	meta.Namespace = ""
	return fieldErrors(apimachineryvalidation.ValidateObjectMeta(&meta, false, path.ValidatePathSegmentName, field.NewPath("metadata")))
}

// validateCRD checks a CustomResourceDefinition: decoded strictly (no
// unknown field, no value of the wrong type) and with a structural
// schema for every version, which the API server requires of
// apiextensions.k8s.io/v1. It does not run the rest of the API server's
// CRD validation (names, conversion, CEL rules in the schema).
func validateCRD(o *unstructured.Unstructured) []FieldError {
	if v := o.GroupVersionKind().Version; v != apiextensionsv1.SchemeGroupVersion.Version {
		return []FieldError{{Field: "apiVersion", Reason: fmt.Sprintf("Unsupported value: %q: Kubernetes %s serves CustomResourceDefinition as %s only",
			o.GetAPIVersion(), schema.KubernetesVersion, apiextensionsv1.SchemeGroupVersion)}}
	}
	var def apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, &def, true); err != nil {
		return []FieldError{{Reason: err.Error()}}
	}
	var errs field.ErrorList
	for i, v := range def.Spec.Versions {
		p := field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema")
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			errs = append(errs, field.Required(p, "schemas are required"))
			continue
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			errs = append(errs, field.Invalid(p, "", err.Error()))
			continue
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			errs = append(errs, field.Invalid(p, "", err.Error()))
			continue
		}
		errs = append(errs, structuralschema.ValidateStructural(p, s)...)
	}
	return sortErrors(fieldErrors(errs))
}
