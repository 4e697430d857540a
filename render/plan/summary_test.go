package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/revision"
)

// TestSummaryActions plans a role through its life: a first install
// (no earlier revision) is install in the summary and its text state,
// while the decision and the history keep KEP-238's update; then
// unchanged, update and rollback.
func TestSummaryActions(t *testing.T) {
	t.Parallel()
	web := func(image string) []*unstructured.Unstructured {
		d := deploy(t, "web", "web", "1")
		setImage(t, d, image)
		return []*unstructured.Unstructured{d}
	}
	var history map[string][]revision.RoleRevision
	step := func(image string) (model.RoleSummary, *model.Role) {
		t.Helper()
		p, err := New(web(image), Options{App: "app", History: history}, Facts{})
		if err != nil {
			t.Fatal(err)
		}
		r := p.Roles()[0]
		history = map[string][]revision.RoleRevision{r.Name: r.History}
		return p.Summarize(nil).Waves[0].Roles[0], r
	}
	var got []string
	for _, image := range []string{"web:1", "web:1", "web:2", "web:1"} {
		s, r := step(image)
		got = append(got, s.Action+"/"+s.State()+"/"+string(r.Decision.Action))
	}
	want := []string{"install/install/update", "unchanged/unchanged/unchanged", "update/update/update", "rollback/rollback/rollback"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary action/state/decision per plan (-want +got):\n%s", diff)
	}
}
