package sharding

import (
	"fmt"
	"strings"
	"testing"
)

func apps(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("app-%d", i)
	}
	return out
}

// TestAssignMovesOnlyAShare checks rendezvous hashing: every app has one
// owner among the members, spread evenly; a member joining takes about
// 1/N of the apps and only from the others; a member leaving gives away
// only its own apps.
func TestAssignMovesOnlyAShare(t *testing.T) {
	three := []string{"replica-a", "replica-b", "replica-c"}
	four := append([]string{"replica-d"}, three...)
	all := apps(3000)
	count := map[string]int{}
	moved := 0
	for _, app := range all {
		before, after := Assign(app, three), Assign(app, four)
		count[before]++
		if before != after {
			moved++
			if after != "replica-d" {
				t.Fatalf("%s moved from %s to %s, not to the member that joined", app, before, after)
			}
		}
		if without := Assign(app, []string{"replica-a", "replica-c"}); before != "replica-b" && without != before {
			t.Fatalf("%s moved from %s to %s when replica-b left", app, before, without)
		}
	}
	for _, m := range three {
		if count[m] < 900 || count[m] > 1100 {
			t.Errorf("%s owns %d of 3000 apps, want about 1000: %v", m, count[m], count)
		}
	}
	if moved < 600 || moved > 900 {
		t.Errorf("a fourth member took %d of 3000 apps, want about 750", moved)
	}
	if got := Assign("x", nil); got != "" {
		t.Errorf("Assign with no members = %q, want none", got)
	}
}

func TestLeaseNames(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"web", "roleout-app-web"},
		{"llm.serving-1", "roleout-app-llm.serving-1"},
	} {
		if got := AppLeaseName("roleout", tc.name); got != tc.want {
			t.Errorf("AppLeaseName(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	// Names that had to change keep apart by a hash of the original.
	a, b := MemberLeaseName("roleout", "Host_1"), MemberLeaseName("roleout", "host-1")
	if a == b || !strings.HasPrefix(a, "roleout-member-host-1-") || b != "roleout-member-host-1" {
		t.Errorf("MemberLeaseName: %q and %q", a, b)
	}
	long := MemberLeaseName("roleout", strings.Repeat("x", 300))
	if len(long) > 253 {
		t.Errorf("a long identity gives a Lease name of %d characters", len(long))
	}
	if got := MemberLeaseName("roleout", "!!!"); !strings.HasPrefix(got, "roleout-member-") || len(got) != len("roleout-member-")+12 {
		t.Errorf("MemberLeaseName(!!!) = %q", got)
	}
}
