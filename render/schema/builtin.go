package schema

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// BuiltinCRD is a CustomResourceDefinition roleout carries for a custom
// workload whose controller code it links: a byte-for-byte copy of the
// CRD file in that controller's module, at the version go.mod requires.
// TestBuiltinCRDsAreTheModules compares each copy with the module's file
// and the version with the one linked, so a module upgrade cannot leave a
// stale copy behind. To refresh one after an upgrade:
//
//	cp "$(go list -m -f '{{.Dir}}' MODULE)/PATH" render/schema/crds/
//
// and set the version in versions.go.
type BuiltinCRD struct {
	// Module and Version name the Go module the CRD comes from, as go.mod
	// requires it.
	Module, Version string
	// Path is the CRD file inside the module; the copy in crds/ has its
	// base name.
	Path string
}

// BuiltinCRDSources are the CRDs built in, one per custom workload kind
// roleout predicts. The StormService CRD serves the RoleSet as well: the
// RoleSet's spec schema is the StormService's spec.template.spec
// (render/predict, roleTemplateHashes).
var BuiltinCRDSources = []BuiltinCRD{
	{Module: "sigs.k8s.io/lws", Version: LWSVersion, Path: "config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml"},
	{Module: "github.com/vllm-project/aibrix", Version: AibrixVersion, Path: "config/crd/orchestration/orchestration.aibrix.ai_stormservices.yaml"},
}

// crdFiles holds the copies: crds/<base name of Path>.
//
//go:embed crds/*.yaml
var crdFiles embed.FS

// builtinCRDs decodes the built-in CRDs once, when a prediction first
// needs one (the LeaderWorkerSet CRD is 1.3 MB of YAML). The objects are
// shared and never changed, so the schema cache keeps their structural
// schemas for the life of the process.
var builtinCRDs = sync.OnceValues(func() ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, c := range BuiltinCRDSources {
		data, err := crdFiles.ReadFile("crds/" + path.Base(c.Path))
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(&u.Object); err != nil {
			return nil, fmt.Errorf("built-in CRD %s@%s %s: %w", c.Module, c.Version, c.Path, err)
		}
		out = append(out, u)
	}
	return out, nil
})

// BuiltinCRDs returns the CustomResourceDefinitions built into roleout,
// which predictions fall back to when neither the render nor the cluster
// has a custom workload's CRD. Callers must not change them.
func BuiltinCRDs() ([]*unstructured.Unstructured, error) { return builtinCRDs() }
