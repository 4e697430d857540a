package predict

import (
	"encoding/json"
	"hash/fnv"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/dump"

	"github.com/roleout/roleout/internal/testobjects"
)

// tableOf builds a type table of this build's types from reflection,
// as hack/typetable builds one of another build's from source: the same
// decoding, conversion and dump code then runs on types whose real
// values, dumps and conversions are at hand to compare with.
func tableOf(root reflect.Type) *typeResolver {
	tbl := &typeTable{Types: map[string]*tableType{}}
	tbl.Root = typeExpr(tbl, root)
	return &typeResolver{table: tbl, named: map[string]*goType{}}
}

var (
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

func typeExpr(tbl *typeTable, t reflect.Type) string {
	if t.Name() == "" || t.PkgPath() == "" {
		switch t.Kind() {
		case reflect.Pointer:
			return "*" + typeExpr(tbl, t.Elem())
		case reflect.Slice:
			return "[]" + typeExpr(tbl, t.Elem())
		case reflect.Map:
			return "map[" + typeExpr(tbl, t.Key()) + "]" + typeExpr(tbl, t.Elem())
		}
		return t.String()
	}
	id := t.PkgPath() + "." + t.Name()
	if _, done := tbl.Types[id]; done {
		return id
	}
	tt := &tableType{Name: t.String()}
	tbl.Types[id] = tt
	switch {
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(unmarshalerType):
		tt.Marshals = true
	case t.Kind() == reflect.Struct:
		tt.Underlying = "struct"
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			tt.Fields = append(tt.Fields, tableField{Name: f.Name, Type: typeExpr(tbl, f.Type), JSON: name,
				OmitEmpty: strings.Contains(opts, "omitempty"), Inline: f.Anonymous && name == "" && f.Tag != ""})
		}
	case t.Kind() == reflect.Map:
		tt.Underlying = "map[" + typeExpr(tbl, t.Key()) + "]" + typeExpr(tbl, t.Elem())
	case t.Kind() == reflect.Slice:
		tt.Underlying = "[]" + typeExpr(tbl, t.Elem())
	default:
		tt.Underlying = t.Kind().String()
	}
	return id
}

// templatesOf returns the role templates of the StormServices of
// testdata, as JSON.
func templatesOf(t *testing.T) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, o := range testobjects.Read(t, "testdata/stormservices.yaml") {
		roles, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "roles")
		for _, r := range roles {
			role := r.(map[string]any)
			out[o.GetName()+"/"+role["name"].(string)] = role["template"]
		}
	}
	out["empty"] = map[string]any{}
	out["null metadata"] = map[string]any{"metadata": nil, "spec": map[string]any{"containers": []any{}}}
	return out
}

// TestHashDumpMatchesSpew checks the dump against go-spew itself (what
// dump.ForHash runs) on values of this build: the pod templates of
// testdata, decoded by encoding/json, and values that exercise spew's
// carried-over ignoreNextType.
func TestHashDumpMatchesSpew(t *testing.T) {
	type quirk struct {
		List  []*int
		Next  string
		Map   map[string]*string
		After int32
	}
	one := 1
	values := map[string]any{
		"nil pointer last in a list": quirk{List: []*int{&one, nil}, Next: "x"},
		"nil pointer in a map":       quirk{Map: map[string]*string{"a": nil}, After: 2},
		"empty":                      quirk{List: []*int{}, Map: map[string]*string{}},
	}
	for name, tmpl := range templatesOf(t) {
		data, _ := json.Marshal(tmpl)
		var p corev1.PodTemplateSpec
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatal(err)
		}
		values[name] = p
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			got, err := hashDump(newReflectNode(reflect.ValueOf(v)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(dump.ForHash(v), got); diff != "" {
				t.Errorf("(-spew +roleout):\n%s", diff)
			}
		})
	}
}

// TestGoValueMatchesThisBuild runs the table-driven decoding, dump and
// conversion on a table of this build's PodTemplateSpec and compares
// them with encoding/json, go-spew and runtime.DefaultUnstructuredConverter
// on the real type. The one difference is known: this build's converter
// leaves out a zero creationTimestamp (omitzero), v0.31.8's writes null.
func TestGoValueMatchesThisBuild(t *testing.T) {
	r := tableOf(reflect.TypeFor[corev1.PodTemplateSpec]())
	typ, err := r.resolve(r.table.Root)
	if err != nil {
		t.Fatal(err)
	}
	for name, tmpl := range templatesOf(t) {
		t.Run(name, func(t *testing.T) {
			data, _ := json.Marshal(tmpl)
			var p corev1.PodTemplateSpec
			if err := json.Unmarshal(data, &p); err != nil {
				t.Fatal(err)
			}
			v, err := decodeGo(typ, tmpl, true)
			if err != nil {
				t.Fatal(err)
			}
			got, err := hashDump(goNode(v))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(dump.ForHash(p), got); diff != "" {
				t.Errorf("dump (-spew +roleout):\n%s", diff)
			}
			want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&p)
			if err != nil {
				t.Fatal(err)
			}
			want["metadata"].(map[string]any)["creationTimestamp"] = nil
			u, err := v.toUnstructured()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(any(want), u); diff != "" {
				t.Errorf("unstructured (-converter +roleout):\n%s", diff)
			}
		})
	}
}

// TestThisBuildsDumpDiffers shows why the table is needed: this build's
// PodTemplateSpec has fields k8s.io/api v0.31.8 does not, so its dump,
// and the role-template-hash, differ from the ones the aibrix controller
// computes, even for a template that sets none of them.
func TestThisBuildsDumpDiffers(t *testing.T) {
	types, err := aibrixTypes()
	if err != nil {
		t.Fatal(err)
	}
	tmpl := map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}}}
	v, err := decodeGo(types.lookup("k8s.io/api/core/v1.PodTemplateSpec"), tmpl, true)
	if err != nil {
		t.Fatal(err)
	}
	old, err := hashDump(goNode(v))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(tmpl)
	var p corev1.PodTemplateSpec
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	current := dump.ForHash(p)
	var added []string
	for _, f := range strings.Fields(current) {
		if !strings.Contains(old, f) {
			added = append(added, strings.TrimRight(f, "}"))
		}
	}
	want := []string{"RestartPolicyRules:([]v1.ContainerRestartRule)<nil>", "Resources:(*v1.ResourceRequirements)<nil>",
		"HostnameOverride:(*string)<nil>", "SchedulingGroup:(*v1.PodSchedulingGroup)<nil>", "EvictionResponders:([]v1.EvictionResponder)<nil>"}
	if diff := cmp.Diff(want, added); diff != "" {
		t.Errorf("fields Kubernetes 1.37 adds to the dump (-want +got):\n%s", diff)
	}
	if fnv32a(old) == fnv32a(current) {
		t.Errorf("the dumps differ but hash the same")
	}
}

func fnv32a(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
