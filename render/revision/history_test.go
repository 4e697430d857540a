package revision

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/kubernetes/pkg/controller/history"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testobjects"
)

// tmpl returns the objects of a role whose one Deployment runs image.
func tmpl(t *testing.T, image string) []*unstructured.Unstructured {
	t.Helper()
	return testobjects.Parse(t, strings.Replace(block, "api:1.0", image, 1))
}

// decideAll applies renders of images one after another to an empty
// history and returns the decisions and the final history.
func decideAll(t *testing.T, images ...string) ([]Decision, []RoleRevision) {
	t.Helper()
	var hist []RoleRevision
	var out []Decision
	for i, img := range images {
		d, h, err := Decide("llm", "decode", tmpl(t, img), hist, fmt.Sprintf("main@sha1:%d", i), testMasker)
		if err != nil {
			t.Fatal(err)
		}
		out, hist = append(out, d), h
	}
	return out, hist
}

func summarize(ds []Decision, hist []RoleRevision) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%s:%d", d.Action, d.Revision.Number))
	}
	var revs []string
	for _, r := range hist {
		revs = append(revs, fmt.Sprint(r.Number))
	}
	return strings.Join(parts, " ") + " | " + strings.Join(revs, ",")
}

func TestDecide(t *testing.T) {
	cases := []struct {
		name   string
		images []string
		want   string
	}{
		{"new role", []string{"a"}, "update:1 | 1"},
		{"unchanged", []string{"a", "a"}, "update:1 unchanged:1 | 1"},
		{"updates", []string{"a", "b", "c"}, "update:1 update:2 update:3 | 1,2,3"},
		{"rollback to N-2 moves its number to max+1", []string{"a", "b", "c", "a"}, "update:1 update:2 update:3 rollback:4 | 2,3,4"},
		{"rollback then forward again", []string{"a", "b", "a", "b"}, "update:1 update:2 rollback:3 rollback:4 | 3,4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds, hist := decideAll(t, tc.images...)
			if diff := cmp.Diff(tc.want, summarize(ds, hist)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("rollback keeps the name and source of the old revision", func(t *testing.T) {
		ds, _ := decideAll(t, "a", "b", "a")
		if ds[2].Revision.Name != ds[0].Revision.Name || ds[2].Revision.Source != "main@sha1:0" || ds[2].Previous != 2 {
			t.Errorf("rollback revision %+v, first %+v", ds[2].Revision, ds[0].Revision)
		}
		if ds[0].Revision.Name != "llm-decode-"+ds[0].Revision.Hash {
			t.Errorf("name %q, want llm-decode-<hash>", ds[0].Revision.Name)
		}
	})
}

// TestDecideCollision: a name another template holds is resolved as the
// StatefulSet controller resolves one, count by count. The names are
// checked against history.NewControllerRevision, the function that names
// a StatefulSet's revisions, given the same data and collision count, and
// against the algorithm written out: 32-bit FNV-1 over the data and the
// count as decimal text, rand.SafeEncodeString of the decimal sum.
func TestDecideCollision(t *testing.T) {
	objs := tmpl(t, "a")
	data, err := canonicalData(identityAll(objs, testMasker))
	if err != nil {
		t.Fatal(err)
	}
	statefulSetName := func(count int32) string {
		parent := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "llm-decode"}}
		cr, err := history.NewControllerRevision(parent, appsv1.SchemeGroupVersion.WithKind("StatefulSet"), nil,
			runtime.RawExtension{Raw: data}, 1, &count)
		if err != nil {
			t.Fatal(err)
		}
		return cr.Name
	}
	writtenOut := func(count int32) string {
		h := fnv.New32()
		h.Write(data)
		h.Write([]byte(strconv.Itoa(int(count))))
		return "llm-decode-" + rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
	}
	for count := range int32(3) {
		if a, b := statefulSetName(count), writtenOut(count); a != b {
			t.Fatalf("collision count %d: the StatefulSet controller names %s, the algorithm %s", count, a, b)
		}
	}
	if h := hash(t, objs); "llm-decode-"+h != statefulSetName(0) {
		t.Errorf("TemplateHash %s is not the StatefulSet controller's hash at collision count 0 (%s)", h, statefulSetName(0))
	}
	other := identityAll(tmpl(t, "other"), testMasker)
	for _, clashes := range []int32{1, 2} {
		t.Run(fmt.Sprintf("%d names taken", clashes), func(t *testing.T) {
			var hist []RoleRevision
			for c := range clashes {
				name := statefulSetName(c)
				hist = append(hist, RoleRevision{Name: name, Hash: strings.TrimPrefix(name, "llm-decode-"), Number: int64(c) + 1, Objects: other})
			}
			d, got, err := Decide("llm", "decode", objs, hist, "main@sha1:1", testMasker)
			if err != nil {
				t.Fatal(err)
			}
			want := Decision{Action: Update, Previous: int64(clashes), Revision: RoleRevision{
				Name: statefulSetName(clashes), Hash: strings.TrimPrefix(statefulSetName(clashes), "llm-decode-"),
				Number: int64(clashes) + 1, Objects: recordAll(objs, testMasker), Source: "main@sha1:1"}}
			if diff := cmp.Diff(want, d); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			again, _, err := Decide("llm", "decode", objs, got, "main@sha1:2", testMasker)
			if err != nil || again.Action != Unchanged || again.Revision.Name != want.Revision.Name {
				t.Errorf("re-render after the collision: %+v %v", again, err)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	_, hist := decideAll(t, "a", "b", "c", "d", "e")
	names := func(h []RoleRevision) string {
		var out []string
		for _, r := range h {
			out = append(out, fmt.Sprint(r.Number))
		}
		return strings.Join(out, ",")
	}
	if got := names(Truncate(hist, 3, hist[4].Name)); got != "3,4,5" {
		t.Errorf("keep 3 = %s, want 3,4,5", got)
	}
	if got := names(Truncate(hist, 2, hist[1].Name)); got != "2,5" {
		t.Errorf("keep 2 with current rev 2 = %s, want 2,5", got)
	}
	if got := names(Truncate(hist, 0, hist[4].Name)); got != "5" {
		t.Errorf("limit 0 = %s, want the current only", got)
	}
}

func TestControllerRevisionRoundTrip(t *testing.T) {
	ds, _ := decideAll(t, "a")
	r := ds[0].Revision
	cr, err := r.ControllerRevision("llm", "decode", "roleout-system")
	if err != nil {
		t.Fatal(err)
	}
	if cr.Name != r.Name || cr.Revision != 1 || cr.Labels[object.AppLabel] != "llm" || cr.Labels[object.RoleLabel] != "decode" ||
		cr.Labels[object.TemplateHashLabel] != r.Hash || cr.Annotations[object.SourceAnnotation] != "main@sha1:0" || cr.Namespace != "roleout-system" {
		t.Errorf("ControllerRevision %+v", cr.ObjectMeta)
	}
	back, err := FromControllerRevision(cr)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := Decide("llm", "decode", back.UnstructuredObjects(), []RoleRevision{back}, "x", testMasker)
	if err != nil || d.Action != Unchanged {
		t.Errorf("a revision read back does not match its own objects: %+v %v", d, err)
	}
}

func TestDecideMasksSecrets(t *testing.T) {
	secret := func(value string) []*unstructured.Unstructured {
		return testobjects.Parse(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: web}\nstringData: {password: "+value+"}\ndata: {token: "+
			"aHVudGVyMg==}\n")
	}
	d1, hist, err := Decide("web", "db", secret("s3cret-one"), nil, "r1", testMasker)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := d1.Revision.ControllerRevision("web", "db", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"s3cret-one", "aHVudGVyMg==", "hunter2"} {
		if strings.Contains(string(cr.Data.Raw), plain) {
			t.Errorf("the recorded revision holds %q: %s", plain, cr.Data.Raw)
		}
	}
	if !strings.Contains(string(cr.Data.Raw), MaskPrefix) {
		t.Errorf("no masked values in %s", cr.Data.Raw)
	}
	same, _, _ := Decide("web", "db", secret("s3cret-one"), hist, "r2", testMasker)
	changed, _, _ := Decide("web", "db", secret("s3cret-two"), hist, "r2", testMasker)
	if same.Action != Unchanged || changed.Action != Update {
		t.Errorf("same value: %s (want unchanged); new value: %s (want update)", same.Action, changed.Action)
	}
	if got := d1.Revision.MaskedSecrets(); len(got) != 1 || got[0] != "web/creds" {
		t.Errorf("MaskedSecrets = %v", got)
	}
}
