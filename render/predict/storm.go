package predict

import (
	"encoding/json"
	"fmt"
	"hash/fnv"

	aibrixhistory "github.com/vllm-project/aibrix/pkg/controller/util/history"
	aibrixhash "github.com/vllm-project/aibrix/pkg/utils/hash"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/schema"
)

const (
	roleSetTemplateSpec = "github.com/vllm-project/aibrix/api/orchestration/v1alpha1.RoleSetTemplateSpec"
	roleSetSpec         = "github.com/vllm-project/aibrix/api/orchestration/v1alpha1.RoleSetSpec"

	// SidecarInjectionAnnotation on a StormService makes aibrix's
	// mutating webhook add its runtime sidecar to every role, which
	// roleout does not predict (pkg/webhook/stormservice_webhook.go).
	SidecarInjectionAnnotation = "model.aibrix.ai/sidecar-injection"
)

// stormUnmodelled says why roleout cannot predict StormService o: its
// template is one aibrix's webhook rewrites; "" for every other.
func stormUnmodelled(o *unstructured.Unstructured) string {
	if _, injected := o.GetAnnotations()[SidecarInjectionAnnotation]; injected {
		return fmt.Sprintf("the %s annotation lets aibrix's mutating webhook add its runtime sidecar, which roleout does not model", SidecarInjectionAnnotation)
	}
	return ""
}

// predictStormService predicts what the aibrix v0.6.0 StormService
// controller (github.com/vllm-project/aibrix, pkg/controller/stormservice
// and pkg/controller/roleset) computes for o: the name of the
// StormService's ControllerRevision and each role's role-template-hash.
//
// The controller links k8s.io/api v0.31.8. It names the revision after
// an FNV-32 hash of the JSON patch runtime.DefaultUnstructuredConverter
// makes of spec.template (revision.go getPatch), and labels each role's
// pods with an FNV-32a hash of the spew dump of the role's pod template
// as the RoleSet controller decodes it from the RoleSet the StormService
// controller created (roleset/utils.go renderStormServicePod,
// util/controller_utils.go ComputeHash). Both see exactly the fields of
// the v0.31.8 Go structs, which roleout does not link: it decodes into
// the generated table of those structs (aibrix_types.json) and writes the
// patch and the dump from it. The structural defaults and pruning of crd
// go first, as the API server applies them to the StormService and again
// to the RoleSet.
func predictStormService(o, crd *unstructured.Unstructured, opts Options) (object.Identity, error) {
	if why := stormUnmodelled(o); why != "" {
		return object.Identity{}, fmt.Errorf("not predicted: %s", why)
	}
	types, err := aibrixTypes()
	if err != nil {
		return object.Identity{}, err
	}
	u := o.DeepCopy()
	if crd != nil {
		if err := schema.AsStored(u, crd); err != nil {
			return object.Identity{}, err
		}
	}
	raw, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "template")
	template, err := decodeGo(types.lookup(roleSetTemplateSpec), raw, found)
	if err != nil {
		return object.Identity{}, fmt.Errorf("decode spec.template as aibrix does: %w", err)
	}
	name, err := stormRevisionName(o.GetName(), template, opts.CollisionCount)
	if err != nil {
		return object.Identity{}, err
	}
	hashes, err := roleTemplateHashes(types, template, crd)
	if err != nil {
		return object.Identity{}, err
	}
	return object.Identity{ControllerRevisionName: name, RoleTemplateHashes: hashes}, nil
}

// stormRevisionName names the ControllerRevision of a StormService
// named name whose decoded spec.template is template: getPatch's JSON
// hashed by aibrix's own history code, always with a collision count (0
// when the status has none).
func stormRevisionName(name string, template *goValue, collisionCount *int32) (string, error) {
	t, err := template.toUnstructured()
	if err != nil {
		return "", fmt.Errorf("convert spec.template as aibrix does: %w", err)
	}
	t.(map[string]any)["$patch"] = "replace"
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"template": t}})
	if err != nil {
		return "", err
	}
	var cc int32
	if collisionCount != nil {
		cc = *collisionCount
	}
	cr := &appsv1.ControllerRevision{Data: runtime.RawExtension{Raw: patch}}
	return aibrixhistory.ControllerRevisionName(name, aibrixhistory.HashControllerRevision(cr, &cc)), nil
}

// roleTemplateHashes hashes each role's pod template as the RoleSet
// controller sees it: the StormService controller sends template.spec as
// a RoleSet's spec (JSON of the Go struct), the API server prunes and
// defaults it with the RoleSet CRD, whose spec schema is the
// StormService CRD's spec.template.spec (both are generated from
// RoleSetSpec), and the RoleSet controller decodes it.
func roleTemplateHashes(types *typeResolver, template *goValue, crd *unstructured.Unstructured) (map[string]string, error) {
	spec := template.field("Spec")
	if spec == nil || spec.null {
		return nil, nil // no RoleSet is created
	}
	sent, err := spec.toUnstructured()
	if err != nil {
		return nil, fmt.Errorf("convert the RoleSet spec as aibrix does: %w", err)
	}
	if crd != nil {
		wrapper := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "orchestration.aibrix.ai/v1alpha1", "kind": "StormService",
			"spec": map[string]any{"template": map[string]any{"spec": sent}},
		}}
		if err := schema.AsStored(wrapper, crd); err != nil {
			return nil, err
		}
		sent, _, _ = unstructured.NestedFieldNoCopy(wrapper.Object, "spec", "template", "spec")
	}
	rs, err := decodeGo(types.lookup(roleSetSpec), sent, true)
	if err != nil {
		return nil, fmt.Errorf("decode the RoleSet spec as aibrix does: %w", err)
	}
	roles := rs.field("Roles")
	out := make(map[string]string, len(roles.items))
	for _, role := range roles.items {
		dump, err := hashDump(goNode(role.field("Template")))
		if err != nil {
			return nil, fmt.Errorf("dump the template of role %s: %w", role.field("Name").scalar, err)
		}
		h := fnv.New32a()
		h.Write([]byte(dump))
		out[role.field("Name").scalar.(string)] = aibrixhash.ShortSafeEncodeString(h.Sum32())
	}
	return out, nil
}
