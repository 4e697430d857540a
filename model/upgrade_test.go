package model

import (
	"slices"
	"strings"
	"testing"

	"github.com/roleout/roleout/internal/object"
)

// TestCompareUpgrade sorts one workload into each of an upgrade's
// lists: an identity that changes rolls, one that stays is unchanged,
// and a version roleout does not model (planned for, or run now) or a
// workload it cannot predict is unknown, with why.
func TestCompareUpgrade(t *testing.T) {
	ref := func(name string) object.Ref {
		return object.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "up", Name: name}
	}
	id := func(h string) object.Identity { return object.Identity{PodTemplateHash: h, ReplicaSetName: "x-" + h} }
	skew := object.Skew{Component: "Kubernetes", Cluster: "v1.36", Modelled: "v1.37"}
	plan := func(ws ...Workload) *Plan {
		return &Plan{Waves: []Wave{{Roles: []*Role{{Name: "r", Workloads: ws}}}}}
	}
	base := plan(
		Workload{Ref: ref("rolls"), Predicted: id("aaa")},
		Workload{Ref: ref("stays"), Predicted: id("bbb")},
		Workload{Ref: ref("skewed"), Predicted: id("ccc")},
		Workload{Ref: ref("unpredicted")},
		Workload{Ref: ref("skewed-now"), Predicted: id("ddd"), Skew: skew},
	)
	next := plan(
		Workload{Ref: ref("rolls"), Predicted: id("zzz")},
		Workload{Ref: ref("stays"), Predicted: id("bbb")},
		Workload{Ref: ref("skewed"), Predicted: id("ccc"), Skew: skew, Unverified: skew.String()},
		Workload{Ref: ref("unpredicted"), Unverified: "a webhook rewrites its template"},
		Workload{Ref: ref("skewed-now"), Predicted: id("ddd")},
	)
	u := CompareUpgrade(base, next)
	if len(u.Rolls) != 1 || u.Rolls[0] != ref("rolls") {
		t.Errorf("rolls = %v", u.Rolls)
	}
	if len(u.Unchanged) != 1 || u.Unchanged[0] != ref("stays") {
		t.Errorf("unchanged = %v", u.Unchanged)
	}
	want := map[string]string{
		"skewed":      "roleout does not model Kubernetes v1.36 (it models v1.37)",
		"unpredicted": "not predicted: a webhook rewrites its template",
		"skewed-now":  "the cluster runs Kubernetes v1.36, which roleout does not model",
	}
	if len(u.Unknown) != len(want) {
		t.Fatalf("unknown = %+v, want %d", u.Unknown, len(want))
	}
	for _, w := range u.Unknown {
		if !strings.Contains(w.Reason, want[w.Name]) || want[w.Name] == "" {
			t.Errorf("%s unknown because %q, want %q", w.Name, w.Reason, want[w.Name])
		}
	}
}

// TestCompareUpgradeByMatches: for a built-in kind, what the controller
// finds the existing revision by decides: a new name with the same
// Matches is unchanged, the same name with another patch rolls, and a
// controller that compares templates semantically rolls nothing.
func TestCompareUpgradeByMatches(t *testing.T) {
	ref := func(name string) object.Ref {
		return object.Ref{APIVersion: "apps/v1", Kind: "StatefulSet", Namespace: "up", Name: name}
	}
	id := func(h string) object.Identity { return object.Identity{ControllerRevisionName: "x-" + h} }
	plan := func(ws ...Workload) *Plan {
		return &Plan{Waves: []Wave{{Roles: []*Role{{Name: "r", Workloads: ws}}}}}
	}
	u := CompareUpgrade(
		plan(Workload{Ref: ref("renamed"), Predicted: id("a"), Matches: "patch:m1"}, Workload{Ref: ref("repatched"), Predicted: id("b"), Matches: "patch:m2"},
			Workload{Ref: ref("semantic"), Predicted: id("c"), Matches: "patch:m4"}),
		plan(Workload{Ref: ref("renamed"), Predicted: id("z"), Matches: "patch:m1"}, Workload{Ref: ref("repatched"), Predicted: id("b"), Matches: "patch:m3"},
			Workload{Ref: ref("semantic"), Predicted: id("y"), Matches: "template:m5"}))
	if !slices.Equal(u.Unchanged, []object.Ref{ref("renamed"), ref("semantic")}) || len(u.Rolls) != 1 || u.Rolls[0] != ref("repatched") || len(u.Unknown) != 0 {
		t.Errorf("upgrade %+v, want renamed and semantic unchanged, repatched rolling", u)
	}
}
