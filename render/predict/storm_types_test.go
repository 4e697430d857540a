package predict

import (
	"os"
	"os/exec"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/testobjects"
)

// TestTypeTableIsWhatTheModulesGive regenerates the type table from the
// module sources (k8s.io/api v0.31.8 and aibrix v0.6.0 in the module
// cache) and compares it with the committed file.
func TestTypeTableIsWhatTheModulesGive(t *testing.T) {
	cmd := exec.Command("go", "run", "./hack/typetable", "-check", "render/predict/aibrix_types.json")
	cmd.Dir = "../.."
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run ./hack/typetable -check: %v", err)
	}
}

// reflectExpr writes t as the table writes type expressions.
func reflectExpr(t reflect.Type) string {
	if t.Name() != "" && t.PkgPath() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + reflectExpr(t.Elem())
	case reflect.Slice:
		return "[]" + reflectExpr(t.Elem())
	case reflect.Map:
		return "map[" + reflectExpr(t.Key()) + "]" + reflectExpr(t.Elem())
	}
	return t.String()
}

// underlyingExpr writes the underlying type of a named non-struct type.
func underlyingExpr(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		return "[]" + reflectExpr(t.Elem())
	case reflect.Map:
		return "map[" + reflectExpr(t.Key()) + "]" + reflectExpr(t.Elem())
	case reflect.Pointer:
		return "*" + reflectExpr(t.Elem())
	}
	return t.Kind().String()
}

// TestOwnTypesKeepTheirLayout checks that the types roleout dumps as its
// own values (Quantity, Time, IntOrString, FieldsV1) have, down to their
// unexported fields, the layout they have in v0.31.8, so their dumps are
// v0.31.8's. The standard library's types (time.Time, big.Int) come from
// the same Go toolchain.
func TestOwnTypesKeepTheirLayout(t *testing.T) {
	types, err := aibrixTypes()
	if err != nil {
		t.Fatal(err)
	}
	for id, own := range ownTypes {
		t.Run(id, func(t *testing.T) {
			seen := map[string]bool{}
			var walk func(id string, rt reflect.Type)
			walk = func(id string, rt reflect.Type) {
				tt, ok := types.table.Types[id]
				if seen[id] || !ok || tt.Underlying == "" {
					return
				}
				seen[id] = true
				if rt.Kind() != reflect.Struct {
					if diff := cmp.Diff(tt.Underlying, underlyingExpr(rt)); diff != "" {
						t.Errorf("%s (-v0.31.8 +this build):\n%s", id, diff)
					}
					return
				}
				var want, got []string
				for _, f := range tt.Fields {
					want = append(want, f.Name+" "+f.Type)
				}
				for i := range rt.NumField() {
					got = append(got, rt.Field(i).Name+" "+reflectExpr(rt.Field(i).Type))
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("fields of %s (-v0.31.8 +this build):\n%s", id, diff)
				}
				for i := range rt.NumField() {
					ft := rt.Field(i).Type
					for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
						ft = ft.Elem()
					}
					walk(reflectExpr(ft), ft)
				}
			}
			walk(id, own)
			if len(seen) == 0 {
				t.Fatalf("%s is not in the table", id)
			}
		})
	}
}

// TestRoleSetSchemaIsTheStormServiceTemplateSpec: roleTemplateHashes
// defaults a RoleSet's spec with the StormService CRD's
// spec.template.spec schema, which must be the RoleSet CRD's spec.
func TestRoleSetSchemaIsTheStormServiceTemplateSpec(t *testing.T) {
	schemas := map[string]map[string]any{}
	for _, crd := range aibrixCRDs(t) {
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		for _, v := range versions {
			if s, ok, _ := unstructured.NestedMap(v.(map[string]any), "schema", "openAPIV3Schema", "properties"); ok {
				schemas[kind] = s
			}
		}
	}
	storm, _, _ := unstructured.NestedMap(schemas["StormService"], "spec", "properties", "template", "properties", "spec")
	roleSet, _, _ := unstructured.NestedMap(schemas["RoleSet"], "spec")
	if storm == nil || roleSet == nil {
		t.Fatal("no StormService or RoleSet schema in the aibrix CRDs")
	}
	if diff := cmp.Diff(roleSet, storm); diff != "" {
		t.Errorf("(-RoleSet spec +StormService spec.template.spec):\n%s", diff)
	}
}

// TestSidecarInjectionIsNotPredicted: a StormService that asks aibrix's
// webhook for its runtime sidecar is not a workload roleout predicts.
func TestSidecarInjectionIsNotPredicted(t *testing.T) {
	objs := testobjects.Read(t, "testdata/stormservices.yaml")
	cases := []struct {
		name        string
		annotations map[string]string
		want        bool
	}{
		{name: "no annotations", want: true},
		{name: "other annotations", annotations: map[string]string{"team": "llm"}, want: true},
		{name: "sidecar injection", annotations: map[string]string{SidecarInjectionAnnotation: "true"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := objs[0].DeepCopy()
			o.SetAnnotations(c.annotations)
			if got := IsWorkload(o); got != c.want {
				t.Errorf("IsWorkload = %v, want %v", got, c.want)
			}
			if _, err := Predict(o, Options{}); (err == nil) != c.want {
				t.Errorf("Predict error %v, want a prediction %v", err, c.want)
			}
		})
	}
}
