package apply

import (
	"maps"
	"reflect"
	"slices"
	"strings"
)

// ChangedPaths returns the dotted paths at which two normalised objects
// differ, outermost first: a key present on one side only, or a value
// that differs; maps are walked, lists and scalars compared whole
// ("spec.replicas", "metadata.labels.team",
// "spec.template.spec.containers").
func ChangedPaths(live, desired map[string]any) []string {
	var out []string
	changedPaths(live, desired, "", &out)
	slices.SortStableFunc(out, func(x, y string) int { return strings.Count(x, ".") - strings.Count(y, ".") })
	return out
}

func changedPaths(a, b map[string]any, prefix string, out *[]string) {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		av, aok := a[k]
		bv, bok := b[k]
		path := prefix + k
		am, aIsMap := av.(map[string]any)
		bm, bIsMap := bv.(map[string]any)
		switch {
		case aok && bok && aIsMap && bIsMap:
			changedPaths(am, bm, path+".", out)
		case aok != bok || !reflect.DeepEqual(av, bv):
			*out = append(*out, path)
		}
	}
}
