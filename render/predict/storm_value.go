package predict

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
)

// goValue is a value of a goType: what a JSON document decodes to in a
// build with that type, without the type existing in this one.
type goValue struct {
	t *goType
	// null: a nil pointer, slice or map.
	null bool
	// scalar holds a bool, string, int64, uint64 or float64.
	scalar any
	// items are a struct's fields (in t.fields' order), a slice's
	// elements, a map's values (in keys' order), or a pointer's target.
	items []*goValue
	keys  []string
	// own is the value of a type that marshals itself.
	own reflect.Value
}

// field returns the value of the struct field named name, or nil.
func (v *goValue) field(name string) *goValue {
	for i, f := range v.t.fields {
		if f.name == name {
			return v.items[i]
		}
	}
	return nil
}

// decodeGo decodes raw, a JSON value as unstructured holds it (absent
// when !present), into t the way encoding/json (and sigs.k8s.io/json,
// which the controllers decode with) does: unknown keys ignored, null
// leaving a value zero.
func decodeGo(t *goType, raw any, present bool) (*goValue, error) {
	v := &goValue{t: t}
	if !present {
		raw = nil
	}
	if t.own != nil {
		return v, v.decodeOwn(raw)
	}
	switch t.kind {
	case reflect.Pointer:
		if raw == nil {
			v.null = true
			return v, nil
		}
		e, err := decodeGo(t.elem, raw, true)
		v.items = []*goValue{e}
		return v, err
	case reflect.Slice:
		return v, v.decodeSlice(raw)
	case reflect.Map:
		return v, v.decodeMap(raw)
	case reflect.Struct:
		return v, v.decodeStruct(raw)
	}
	s, err := decodeScalar(t.kind, raw)
	v.scalar = s
	return v, err
}

func (v *goValue) decodeOwn(raw any) error {
	p := reflect.New(v.t.own)
	if raw != nil {
		data, err := json.Marshal(raw)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, p.Interface()); err != nil {
			return fmt.Errorf("decode %s: %w", v.t.name, err)
		}
	}
	v.own = p.Elem()
	return nil
}

func (v *goValue) decodeSlice(raw any) error {
	if raw == nil {
		v.null = true
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		return fmt.Errorf("%s: want a list, have %T", v.t.name, raw)
	}
	v.items = make([]*goValue, len(list))
	for i, item := range list {
		e, err := decodeGo(v.t.elem, item, true)
		if err != nil {
			return err
		}
		v.items[i] = e
	}
	return nil
}

func (v *goValue) decodeMap(raw any) error {
	if raw == nil {
		v.null = true
		return nil
	}
	m, ok := raw.(map[string]any)
	if !ok || v.t.key.kind != reflect.String {
		return fmt.Errorf("%s: want an object with string keys, have %T", v.t.name, raw)
	}
	for k := range m {
		v.keys = append(v.keys, k)
	}
	sort.Strings(v.keys)
	v.items = make([]*goValue, len(v.keys))
	for i, k := range v.keys {
		e, err := decodeGo(v.t.elem, m[k], true)
		if err != nil {
			return err
		}
		v.items[i] = e
	}
	return nil
}

func (v *goValue) decodeStruct(raw any) error {
	m, isMap := raw.(map[string]any)
	if raw != nil && !isMap {
		return fmt.Errorf("%s: want an object, have %T", v.t.name, raw)
	}
	v.items = make([]*goValue, len(v.t.fields))
	for i, f := range v.t.fields {
		var (
			e   *goValue
			err error
		)
		switch {
		case f.inline:
			e, err = decodeGo(f.typ, raw, raw != nil)
		case f.json == "" || f.json == "-":
			e, err = decodeGo(f.typ, nil, false)
		default:
			item, ok := m[f.json]
			e, err = decodeGo(f.typ, item, ok)
		}
		if err != nil {
			return fmt.Errorf("%s.%s: %w", v.t.name, f.name, err)
		}
		v.items[i] = e
	}
	return nil
}

// decodeScalar returns raw as the Go value of kind k holds it; nil
// decodes to the zero value.
func decodeScalar(k reflect.Kind, raw any) (any, error) {
	switch k {
	case reflect.String:
		if raw == nil {
			return "", nil
		}
		if s, ok := raw.(string); ok {
			return s, nil
		}
	case reflect.Bool:
		if raw == nil {
			return false, nil
		}
		if b, ok := raw.(bool); ok {
			return b, nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		switch n := raw.(type) {
		case nil:
			return int64(0), nil
		case int64:
			return n, nil
		case float64:
			if n == math.Trunc(n) {
				return int64(n), nil
			}
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		switch n := raw.(type) {
		case nil:
			return uint64(0), nil
		case int64:
			if n >= 0 {
				return uint64(n), nil
			}
		}
	case reflect.Float32, reflect.Float64:
		switch n := raw.(type) {
		case nil:
			return float64(0), nil
		case float64:
			return n, nil
		case int64:
			return float64(n), nil
		}
	default:
		return nil, fmt.Errorf("values of kind %s are not supported", k)
	}
	return nil, fmt.Errorf("cannot decode %T into a %s", raw, k)
}

// toUnstructured converts v as runtime.DefaultUnstructuredConverter of
// apimachinery v0.31.8 does: every field but an empty omitempty one,
// structs never empty (so a zero creationTimestamp is null), inline
// fields merged into their parent.
func (v *goValue) toUnstructured() (any, error) {
	if v.own.IsValid() {
		return ownToUnstructured(v.own)
	}
	switch v.t.kind {
	case reflect.Pointer:
		if v.null {
			return nil, nil
		}
		return v.items[0].toUnstructured()
	case reflect.Slice:
		if v.null {
			return nil, nil
		}
		if v.t.elem.kind == reflect.Uint8 {
			return nil, fmt.Errorf("%s: byte slices are not supported", v.t.name)
		}
		out := make([]any, len(v.items))
		for i, e := range v.items {
			u, err := e.toUnstructured()
			if err != nil {
				return nil, err
			}
			out[i] = u
		}
		return out, nil
	case reflect.Map:
		if v.null {
			return nil, nil
		}
		out := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			u, err := v.items[i].toUnstructured()
			if err != nil {
				return nil, err
			}
			out[k] = u
		}
		return out, nil
	case reflect.Struct:
		return v.structToUnstructured()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n := v.scalar.(uint64); n <= math.MaxInt64 {
			return int64(n), nil
		}
		return nil, fmt.Errorf("%s: unsigned value does not fit into int64", v.t.name)
	}
	return v.scalar, nil
}

func (v *goValue) structToUnstructured() (map[string]any, error) {
	out := map[string]any{}
	for i, f := range v.t.fields {
		item := v.items[i]
		if f.json == "-" || (f.json == "" && !f.inline) || (f.omitEmpty && item.isZero()) {
			continue
		}
		u, err := item.toUnstructured()
		if err != nil {
			return nil, err
		}
		if !f.inline {
			out[f.json] = u
			continue
		}
		m, ok := u.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s.%s: inline field is not an object", v.t.name, f.name)
		}
		for k, x := range m {
			out[k] = x
		}
	}
	return out, nil
}

// isZero is the v0.31.8 converter's test for omitempty.
func (v *goValue) isZero() bool {
	if v.own.IsValid() {
		return v.own.Kind() != reflect.Struct && v.own.IsZero()
	}
	switch v.t.kind {
	case reflect.Pointer:
		return v.null
	case reflect.Slice, reflect.Map:
		return v.null || len(v.items) == 0
	case reflect.Struct:
		return false
	case reflect.String:
		return v.scalar == ""
	case reflect.Bool:
		return v.scalar == false
	case reflect.Float32, reflect.Float64:
		return v.scalar == float64(0)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.scalar == uint64(0)
	}
	return v.scalar == int64(0)
}

// ownToUnstructured converts a value of a type that marshals itself
// with this build's converter, whose handling of such types (their
// MarshalJSON, null as nil) is v0.31.8's.
func ownToUnstructured(own reflect.Value) (any, error) {
	wrapper := reflect.New(reflect.StructOf([]reflect.StructField{{Name: "V", Type: own.Type(), Tag: `json:"v"`}}))
	wrapper.Elem().Field(0).Set(own)
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(wrapper.Interface())
	if err != nil {
		return nil, err
	}
	return m["v"], nil
}
