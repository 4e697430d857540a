package kubeminor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/workloadgen"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/render/predict"
)

// builtHelpers returns the helpers make predictors built (make test
// builds them first).
func builtHelpers(t *testing.T) *Helpers {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "bin", "predictors"))
	if err != nil {
		t.Fatal(err)
	}
	h := New(dir)
	t.Cleanup(h.Close)
	for _, m := range []string{"1.36", predict.LinkedMinor()} {
		if !h.Models(m) {
			t.Fatalf("no helper for Kubernetes %s in %s: run make predictors", m, dir)
		}
	}
	return h
}

func identity(k predict.KubeIdentity) object.Identity {
	return object.Identity{PodTemplateHash: k.PodTemplateHash, ReplicaSetName: k.ReplicaSetName,
		ControllerRevisionName: k.ControllerRevisionName, ControllerRevisionHash: k.ControllerRevisionHash}
}

// TestLinkedHelperEqualsLinkedCode holds the helper hack/kubepredict
// builds for the release roleout links equal to the code roleout runs in
// process, on 300 random workloads: the generated module, the copied
// file and the protocol change nothing, so a helper of another minor is
// that minor's code and nothing else.
func TestLinkedHelperEqualsLinkedCode(t *testing.T) {
	h := builtHelpers(t)
	linked := predict.LinkedMinor()
	differ, rolls := 0, map[string]int{}
	for i, o := range workloadgen.Workloads(1, 300, "predict") {
		js, err := o.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var cc *int32
		if i%7 == 0 {
			n := int32(i % 3)
			cc = &n
		}
		want, err := predict.Predict(o, predict.Options{CollisionCount: cc})
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.Predict(linked, o.GetKind(), js, cc)
		if err != nil {
			t.Fatalf("%s: %v", o.GetName(), err)
		}
		if !identity(got).Equal(want) {
			t.Errorf("%s: the %s helper says %+v, the linked code %+v", o.GetName(), linked, got, want)
		}
		older, err := h.Predict("1.36", o.GetKind(), js, cc)
		if err != nil {
			t.Fatalf("%s at 1.36: %v", o.GetName(), err)
		}
		if !identity(older).Equal(want) {
			differ++
		}
		now, err := predict.PredictOutcome(o, predict.Options{CollisionCount: cc})
		if err != nil {
			t.Fatal(err)
		}
		if now.Matches == "" || got.Matches != now.Matches {
			t.Errorf("%s: the helper matches by %q, the linked code by %q", o.GetName(), got.Matches, now.Matches)
		}
		if older.Matches != now.Matches {
			rolls[o.GetKind()]++
			if o.GetKind() == "Deployment" {
				t.Errorf("%s: a Deployment's template is matched by itself, at any version", o.GetName())
			}
		}
	}
	t.Logf("Kubernetes 1.36 names %d of 300 templates differently from %s; an upgrade from it would roll %v", differ, linked, rolls)
}

// TestPredictOutcomeAtAModelledMinor: a cluster at a minor with a helper
// gets that minor's prediction, verified; one at a minor without stays
// unverified, with the skew named.
func TestPredictOutcomeAtAModelledMinor(t *testing.T) {
	h := builtHelpers(t)
	o := workloadgen.Workloads(7, 2, "predict")[1] // a StatefulSet
	js, _ := o.MarshalJSON()
	want, err := h.Predict("1.36", o.GetKind(), js, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := predict.PredictOutcome(o, predict.Options{Cluster: object.ClusterVersions{Kubernetes: "v1.36.3"}, Minors: h})
	if err != nil {
		t.Fatal(err)
	}
	if out.Unverified != "" || !out.Skew.IsZero() || !out.Prediction.Equal(identity(want)) {
		t.Errorf("at v1.36.3: %+v, want the 1.36 helper's %+v, verified", out, want)
	}
	out, err = predict.PredictOutcome(o, predict.Options{Cluster: object.ClusterVersions{Kubernetes: "v1.35.4"}, Minors: h})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Unverified, "v1.35.4") || out.Skew.IsZero() {
		t.Errorf("at v1.35.4, which no helper models: %+v, want it unverified with the skew", out)
	}
}

// TestHelperRefusalsAndFaults: a workload the helper cannot read is its
// answer, and it keeps serving; a helper that hangs is killed at the
// deadline and started again; one that dies says what it wrote; a minor
// that is not one names no file.
func TestHelperRefusalsAndFaults(t *testing.T) {
	h := builtHelpers(t)
	if _, err := h.Predict("1.36", "Deployment", []byte(`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":"many"}}`), nil); err == nil || !strings.Contains(err.Error(), "decode") {
		t.Errorf("an unreadable Deployment: %v, want the helper's decode error", err)
	}
	first := h.procs["1.36"]
	o := workloadgen.Workloads(3, 1, "predict")[0]
	js, _ := o.MarshalJSON()
	if _, err := h.Predict("1.36", o.GetKind(), js, nil); err != nil || h.procs["1.36"] != first {
		t.Errorf("after a refusal: %v (same process: %v)", err, h.procs["1.36"] == first)
	}

	dir := t.TempDir()
	script := func(minor, body string) {
		if err := os.WriteFile(filepath.Join(dir, "kubernetes-"+minor), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script("1.90", "sleep 60")
	script("1.91", "echo 'broken helper' >&2; exit 3")
	script("1.92", "head -c 100000 /dev/zero | tr '\\0' x")
	f := New(dir)
	f.Timeout = 300 * time.Millisecond
	t.Cleanup(f.Close)
	start := time.Now()
	if _, err := f.Predict("1.90", "Deployment", js, nil); err == nil || time.Since(start) > 20*time.Second {
		t.Errorf("a hanging helper: %v after %s", err, time.Since(start))
	}
	if f.procs["1.90"] != nil {
		t.Error("the hung helper is still kept")
	}
	if _, err := f.Predict("1.91", "Deployment", js, nil); err == nil || !strings.Contains(err.Error(), "broken helper") {
		t.Errorf("a dead helper: %v, want its stderr", err)
	}
	if _, err := f.Predict("1.92", "Deployment", js, nil); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("an endless answer: %v, want it refused", err)
	}
	for _, bad := range []string{"1.90/../1.91", "../1.90", "", "1.x"} {
		if f.Models(bad) {
			t.Errorf("Models(%q)", bad)
		}
	}
	if New("").Models("1.36") || (*Helpers)(nil).Models("1.36") {
		t.Error("helpers with no directory model a minor")
	}
}

// TestUpgradeImpact133To134 plans 30 random workloads for a cluster at
// Kubernetes 1.33 and again at 1.34, each with that minor's helper, and
// sorts them as roleout plan --kubernetes-version does: 1.34 serializes
// every revision patch differently (kubernetes #134773), so every
// DaemonSet rolls (its controller compares patches byte for byte); its
// StatefulSet controller compares a differing revision semantically
// (the StatefulSetSemanticRevisionComparison mitigation of 1.34.4), and
// the Deployment controller always does, so neither rolls.
func TestUpgradeImpact133To134(t *testing.T) {
	h := builtHelpers(t)
	for _, m := range []string{"1.33", "1.34"} {
		if !h.Models(m) {
			t.Fatalf("no helper for Kubernetes %s: run make predictors", m)
		}
	}
	objs := workloadgen.Workloads(11, 30, "up")
	planAt := func(v string) *model.Plan {
		p, err := plan.New(objs, plan.Options{App: "up"}, plan.Facts{Versions: object.ClusterVersions{Kubernetes: v}, Minors: h})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	u := model.CompareUpgrade(planAt("v1.33.13"), planAt("v1.34.4"))
	var want []object.Ref
	for _, o := range objs {
		if o.GetKind() == "DaemonSet" {
			want = append(want, object.RefOf(o))
		}
	}
	byName := func(a, b object.Ref) int { return strings.Compare(a.String(), b.String()) }
	slices.SortFunc(want, byName)
	rolls := slices.SortedFunc(slices.Values(u.Rolls), byName)
	if !slices.Equal(rolls, want) || len(u.Unknown) != 0 || len(u.Unchanged) != len(objs)-len(want) {
		t.Errorf("1.33 → 1.34: rolls %v, unchanged %d, unknown %v; want the %d DaemonSets to roll and nothing unknown", rolls, len(u.Unchanged), u.Unknown, len(want))
	}
}
