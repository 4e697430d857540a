package apply

import (
	"reflect"
	"sort"
)

// ChangedPaths returns the dotted paths at which two normalised objects
// differ, outermost first: a key present on one side only, or a value
// that differs; maps are walked, lists and scalars compared whole
// ("spec.replicas", "metadata.labels.team",
// "spec.template.spec.containers").
func ChangedPaths(live, desired map[string]any) []string {
	var out []string
	changedPaths(live, desired, "", &out)
	sort.SliceStable(out, func(i, j int) bool { return depth(out[i]) < depth(out[j]) })
	return out
}

func changedPaths(a, b map[string]any, prefix string, out *[]string) {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
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

// depth is the number of dots in a path.
func depth(path string) int {
	n := 0
	for _, c := range path {
		if c == '.' {
			n++
		}
	}
	return n
}
