package predict

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// dumpNode is a value as the spew dump walks it: either a goValue (a
// type of another build) or a reflect.Value (one of this build).
type dumpNode interface {
	typeName() string
	kind() reflect.Kind
	// isNil: a nil pointer, slice, map or interface.
	isNil() bool
	// elem: a pointer's target or an interface's value.
	elem() dumpNode
	// count: a slice's or array's elements, a map's entries, a struct's
	// fields.
	count() int
	item(i int) dumpNode
	fieldName(i int) string
	// key: a map's keys, sorted as spew sorts them.
	key(i int) (dumpNode, error)
	scalar() any
}

// hashDump writes v as k8s.io/apimachinery v0.31.8's dump.ForHash does
// (the go-spew ConfigState with Indent " ", SortKeys, SpewKeys,
// DisableMethods, DisablePointerAddresses and DisableCapacities, printing
// "%#v"): the input of the aibrix controller's DeepHashObject.
func hashDump(v dumpNode) (string, error) {
	d := &dumper{}
	d.format(v)
	return d.buf.String(), d.err
}

// dumper follows go-spew's formatState for that configuration,
// including its ignoreNextType flag, which a nil pointer in a list or a
// map carries on to the next value.
type dumper struct {
	buf            strings.Builder
	ignoreNextType bool
	err            error
}

func (d *dumper) unpack(v dumpNode) dumpNode {
	if v.kind() == reflect.Interface {
		d.ignoreNextType = false
		if !v.isNil() {
			return v.elem()
		}
	}
	return v
}

func (d *dumper) formatPtr(v dumpNode) {
	if v.isNil() && d.ignoreNextType {
		d.buf.WriteString("<nil>")
		return
	}
	indirects, nilFound, ve := 0, false, v
	for ve.kind() == reflect.Pointer {
		if ve.isNil() {
			nilFound = true
			break
		}
		indirects++
		ve = ve.elem()
		if ve.kind() == reflect.Interface {
			if ve.isNil() {
				nilFound = true
				break
			}
			ve = ve.elem()
		}
	}
	if !d.ignoreNextType {
		d.buf.WriteString("(" + strings.Repeat("*", indirects) + ve.typeName() + ")")
	} else {
		if nilFound {
			indirects += strings.Count(ve.typeName(), "*")
		}
		d.buf.WriteString("<" + strings.Repeat("*", indirects) + ">")
	}
	if nilFound {
		d.buf.WriteString("<nil>")
		return
	}
	d.ignoreNextType = true
	d.format(ve)
}

func (d *dumper) format(v dumpNode) {
	k := v.kind()
	if k == reflect.Invalid {
		d.buf.WriteString("<invalid>")
		return
	}
	if k == reflect.Pointer {
		d.formatPtr(v)
		return
	}
	if !d.ignoreNextType {
		d.buf.WriteString("(" + v.typeName() + ")")
	}
	d.ignoreNextType = false
	switch k {
	case reflect.Slice, reflect.Array:
		if k == reflect.Slice && v.isNil() {
			d.buf.WriteString("<nil>")
			return
		}
		d.buf.WriteString("[")
		for i := range v.count() {
			if i > 0 {
				d.buf.WriteString(" ")
			}
			d.ignoreNextType = true
			d.format(d.unpack(v.item(i)))
		}
		d.buf.WriteString("]")
	case reflect.Map:
		d.formatMap(v)
	case reflect.Struct:
		d.buf.WriteString("{")
		for i := range v.count() {
			if i > 0 {
				d.buf.WriteString(" ")
			}
			d.buf.WriteString(v.fieldName(i) + ":")
			d.format(d.unpack(v.item(i)))
		}
		d.buf.WriteString("}")
	case reflect.Interface:
		if v.isNil() {
			d.buf.WriteString("<nil>")
		}
	default:
		d.formatScalar(k, v.scalar())
	}
}

func (d *dumper) formatMap(v dumpNode) {
	if v.isNil() {
		d.buf.WriteString("<nil>")
		return
	}
	d.buf.WriteString("map[")
	for i := range v.count() {
		if i > 0 {
			d.buf.WriteString(" ")
		}
		key, err := v.key(i)
		if err != nil {
			d.err = err
			return
		}
		d.ignoreNextType = true
		d.format(d.unpack(key))
		d.buf.WriteString(":")
		d.ignoreNextType = true
		d.format(d.unpack(v.item(i)))
	}
	d.buf.WriteString("]")
}

func (d *dumper) formatScalar(k reflect.Kind, s any) {
	switch x := s.(type) {
	case bool:
		d.buf.WriteString(strconv.FormatBool(x))
	case int64:
		d.buf.WriteString(strconv.FormatInt(x, 10))
	case uint64:
		d.buf.WriteString(strconv.FormatUint(x, 10))
	case float64:
		bits := 64
		if k == reflect.Float32 {
			bits = 32
		}
		d.buf.WriteString(strconv.FormatFloat(x, 'g', -1, bits))
	case string:
		d.buf.WriteString(x)
	default:
		d.err = fmt.Errorf("values of kind %s are not supported", k)
	}
}

// goNode is a goValue as a dumpNode; a type that marshals itself is
// walked as this build's value.
func goNode(v *goValue) dumpNode {
	if v.own.IsValid() {
		return newReflectNode(v.own)
	}
	return goValueNode{v}
}

type goValueNode struct{ v *goValue }

func (n goValueNode) typeName() string       { return n.v.t.name }
func (n goValueNode) kind() reflect.Kind     { return n.v.t.kind }
func (n goValueNode) isNil() bool            { return n.v.null }
func (n goValueNode) elem() dumpNode         { return goNode(n.v.items[0]) }
func (n goValueNode) count() int             { return len(n.v.items) }
func (n goValueNode) item(i int) dumpNode    { return goNode(n.v.items[i]) }
func (n goValueNode) fieldName(i int) string { return n.v.t.fields[i].name }
func (n goValueNode) scalar() any            { return n.v.scalar }

func (n goValueNode) key(i int) (dumpNode, error) {
	return goValueNode{&goValue{t: n.v.t.key, scalar: n.v.keys[i]}}, nil
}

// reflectNode is a value of this build as a dumpNode.
type reflectNode struct {
	v    reflect.Value
	keys []reflect.Value // a map's, sorted
}

func (n reflectNode) typeName() string   { return n.v.Type().String() }
func (n reflectNode) kind() reflect.Kind { return n.v.Kind() }
func (n reflectNode) elem() dumpNode     { return newReflectNode(n.v.Elem()) }
func (n reflectNode) fieldName(i int) string {
	return n.v.Type().Field(i).Name
}

func (n reflectNode) isNil() bool {
	switch n.v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return n.v.IsNil()
	}
	return false
}

func (n reflectNode) count() int {
	switch n.v.Kind() {
	case reflect.Struct:
		return n.v.NumField()
	case reflect.Slice, reflect.Array, reflect.Map:
		return n.v.Len()
	}
	return 0
}

func (n reflectNode) item(i int) dumpNode {
	switch n.v.Kind() {
	case reflect.Struct:
		return newReflectNode(n.v.Field(i))
	case reflect.Map:
		return newReflectNode(n.v.MapIndex(n.keys[i]))
	}
	return newReflectNode(n.v.Index(i))
}

func (n reflectNode) key(i int) (dumpNode, error) {
	if n.v.Type().Key().Kind() != reflect.String {
		return nil, fmt.Errorf("maps with %s keys are not supported", n.v.Type().Key())
	}
	return newReflectNode(n.keys[i]), nil
}

func (n reflectNode) scalar() any {
	switch n.v.Kind() {
	case reflect.Bool:
		return n.v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return n.v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return n.v.Uint()
	case reflect.Float32, reflect.Float64:
		return n.v.Float()
	case reflect.String:
		return n.v.String()
	}
	return nil
}

func newReflectNode(v reflect.Value) reflectNode {
	n := reflectNode{v: v}
	if v.Kind() == reflect.Map && !v.IsNil() {
		n.keys = v.MapKeys()
		sort.Slice(n.keys, func(i, j int) bool { return n.keys[i].String() < n.keys[j].String() })
	}
	return n
}
