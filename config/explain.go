package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// explainDecode re-reads the JSON form of a configuration that failed to
// decode and says, for the first field at fault, where it is
// (apps[1].roles[0].upgradeOrder), what is wrong and what to write
// instead: the closest known field name for an unknown field, the right
// type for a wrong one. It returns nil when it finds nothing to say, and
// the decoder's own error then stands.
func explainDecode(js []byte) error {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return explainValue(reflect.TypeOf(Config{}), v, "")
}

var (
	durationType    = reflect.TypeOf(metav1.Duration{})
	unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

func joinField(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func explainValue(t reflect.Type, v any, field string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil {
		return nil // null leaves the field unset
	}
	if t == durationType {
		return explainDuration(v, field)
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil // a type that decodes itself
	}
	switch t.Kind() {
	case reflect.Struct:
		return explainStruct(t, v, field)
	case reflect.Slice:
		return explainList(t, v, field)
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: got %s, want a mapping (key: value)", field, describeJSON(v))
		}
		for k, e := range m {
			if err := explainValue(t.Elem(), e, joinField(field, k)); err != nil {
				return err
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: got %s, want a string: quote it (%q)", field, describeJSON(v), plainJSON(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			hint := "write true or false"
			if s, ok := v.(string); ok && (s == "true" || s == "false") {
				hint = fmt.Sprintf("remove the quotes (write %s, not %q)", s, s)
			}
			return fmt.Errorf("%s: got %s, want true or false: %s", field, describeJSON(v), hint)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return explainInt(v, field)
	case reflect.Float32, reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			return fmt.Errorf("%s: got %s, want a number, without quotes", field, describeJSON(v))
		}
	}
	return nil
}

// explainStruct explains v, decoded into the struct type t at field.
func explainStruct(t reflect.Type, v any, field string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: got %s, want a mapping of fields (key: value on the lines below it, indented)", field, describeJSON(v))
	}
	fields := jsonFields(t)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ft, ok := fields[k]
		if !ok {
			return unknownField(field, k, fields)
		}
		if err := explainValue(ft, m[k], joinField(field, k)); err != nil {
			return err
		}
	}
	return nil
}

// explainList explains v, decoded into the slice type t at field.
func explainList(t reflect.Type, v any, field string) error {
	list, ok := v.([]any)
	if !ok {
		hint := `start each entry on its own line with "- "`
		if _, scalar := v.(map[string]any); !scalar {
			hint = fmt.Sprintf(`write [%s], or each entry on its own line starting with "- "`, plainJSON(v))
		}
		return fmt.Errorf("%s: got %s, want a list: %s", field, describeJSON(v), hint)
	}
	for i, e := range list {
		if err := explainValue(t.Elem(), e, fmt.Sprintf("%s[%d]", field, i)); err != nil {
			return err
		}
	}
	return nil
}

// explainInt explains v, decoded into a whole number at field.
func explainInt(v any, field string) error {
	n, ok := v.(json.Number)
	if !ok {
		hint := "write a number such as 1, without quotes"
		if s, ok := v.(string); ok {
			if _, err := json.Number(s).Int64(); err == nil {
				hint = fmt.Sprintf("remove the quotes (write %s, not %q)", s, s)
			}
		}
		return fmt.Errorf("%s: got %s, want a whole number: %s", field, describeJSON(v), hint)
	}
	if _, err := n.Int64(); err != nil {
		return fmt.Errorf("%s: got %s, want a whole number such as 1", field, describeJSON(v))
	}
	return nil
}

const durationHint = `a number and a unit with no space, such as "30s", "5m" or "1h30m" (units: ns, us, ms, s, m, h)`

func explainDuration(v any, field string) error {
	switch d := v.(type) {
	case string:
		if _, err := time.ParseDuration(d); err != nil {
			return fmt.Errorf("%s: %q is not a duration: write %s", field, d, durationHint)
		}
		return nil
	case json.Number:
		return fmt.Errorf("%s: got the number %s, which has no unit: write \"%ss\" or \"%sm\" (a duration is a number and a unit: ns, us, ms, s, m, h)", field, d, d, d)
	default:
		return fmt.Errorf("%s: got %s, want a duration: write %s", field, describeJSON(v), durationHint)
	}
}

// jsonFields maps the JSON names of t's fields (embedded structs'
// included) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					out[k] = v
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// unknownField says that key is not a field at parent and suggests the
// closest field name it takes.
func unknownField(parent, key string, fields map[string]reflect.Type) error {
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names)
	where := parent
	if where == "" {
		where = "the top level"
	}
	full := joinField(parent, key)
	if best := closestName(key, names); best != "" {
		note := ""
		if strings.EqualFold(best, key) {
			note = " (field names are case-sensitive)"
		}
		return fmt.Errorf("unknown field %q: did you mean %q%s? %s takes: %s", full, best, note, where, strings.Join(names, ", "))
	}
	return fmt.Errorf("unknown field %q: %s takes: %s (see the configuration reference in the README)", full, where, strings.Join(names, ", "))
}

// closestName returns the name in names nearest to key by edit distance
// (case-insensitive), or "" when none is near enough to be a misspelling.
func closestName(key string, names []string) string {
	best, bestD := "", -1
	lk := strings.ToLower(key)
	for _, n := range names {
		d := editDistance(lk, strings.ToLower(n))
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	limit := max(2, len(key)/3)
	if bestD < 0 || bestD > limit {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func describeJSON(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case json.Number:
		return "the number " + x.String()
	case bool:
		return fmt.Sprintf("%t", x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return "null"
}

func plainJSON(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return fmt.Sprintf("%t", x)
	}
	return "..."
}
