package render

import (
	"runtime/debug"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
)

// managedByLabel is the label kustomize's buildMetadata [managedByLabel]
// sets, to "kustomize-<version of the kustomize program>".
const managedByLabel = "app.kubernetes.io/managed-by"

// kustomizeAPIModule is the kustomize library roleout links.
const kustomizeAPIModule = "sigs.k8s.io/kustomize/api"

// managedByValue is the value roleout gives managedByLabel when
// kustomize's own is not a valid label value. Linked into roleout,
// kustomize finds no kustomize program's version and writes
// "kustomize-(devel)", which the API server refuses; roleout names the
// library it links instead: "kustomize-api-v0.21.2". It is read from the
// build once.
var managedByValue = sync.OnceValue(func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == kustomizeAPIModule && d.Version != "" && d.Version != "(devel)" {
				if v := "kustomize-api-" + d.Version; len(validation.IsValidLabelValue(v)) == 0 {
					return v
				}
			}
		}
	}
	return "kustomize"
})

// fixManagedBy gives objects whose managedByLabel kustomize set to an
// invalid label value (a "kustomize-…" one) the value managedByValue: a
// render with buildMetadata [managedByLabel] is then accepted as
// `kustomize build` makes it, and a value the repository wrote itself is
// left alone.
func fixManagedBy(objs []*unstructured.Unstructured) {
	for _, o := range objs {
		labels := o.GetLabels()
		v, ok := labels[managedByLabel]
		if !ok || !strings.HasPrefix(v, "kustomize-") || len(validation.IsValidLabelValue(v)) == 0 {
			continue
		}
		labels[managedByLabel] = managedByValue()
		o.SetLabels(labels)
	}
}
