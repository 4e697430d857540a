package render

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
)

func TestCheckRoleName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, app, role string
		// wantErr is a part of the error; "" accepts.
		wantErr string
	}{
		{name: "label", app: "web", role: "prefill"},
		{name: "digits and dashes", app: "web", role: "db-2"},
		{name: "63 characters", app: "web", role: strings.Repeat("r", 63)},
		{name: "parent directory", app: "web", role: "..", wantErr: "not a valid role name"},
		{name: "path into another app", app: "web", role: "../other-app/x", wantErr: "not a valid role name"},
		{name: "slash", app: "web", role: "a/b", wantErr: "not a valid role name"},
		{name: "dot", app: "web", role: "a.b", wantErr: "not a valid role name"},
		{name: "upper case", app: "web", role: "Web", wantErr: "not a valid role name"},
		{name: "leading dash", app: "web", role: "-x", wantErr: "not a valid role name"},
		{name: "empty", app: "web", role: "", wantErr: "not a valid role name"},
		{name: "newline", app: "web", role: "a\nb", wantErr: "not a valid role name"},
		{name: "64 characters", app: "web", role: strings.Repeat("r", 64), wantErr: "must be no more than 63 characters"},
		{name: "revision name too long", app: strings.Repeat("a", 200), role: strings.Repeat("r", 50), wantErr: "would not be valid object names"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckRoleName(tc.app, tc.role)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("got %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

// TestNewPlanRefusesBadRoleNames: a role name from a rendered object's
// annotation or from the config that is not a DNS label fails the plan,
// naming the object and the value.
func TestNewPlanRefusesBadRoleNames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		objs    func(t *testing.T) []*unstructured.Unstructured
		roles   []RoleSpec
		wantErr []string
	}{
		{name: "annotation leaves the role directory",
			objs: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{deploy(t, "api", "../other-app/x", "")}
			},
			wantErr: []string{"Deployment/app/api", "annotation roleout.dev/role", `"../other-app/x" is not a valid role name`}},
		{name: "annotation with upper case, next to a good one",
			objs: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{deploy(t, "db", "db", ""), deploy(t, "api", "Front", "")}
			},
			wantErr: []string{"Deployment/app/api", `"Front"`}},
		{name: "config role",
			objs: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{deploy(t, "api", "", "")}
			},
			roles:   []RoleSpec{{Name: "a/b"}},
			wantErr: []string{"app config role", `"a/b" is not a valid role name`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPlan(tc.objs(t), PlanOptions{App: "web", Roles: tc.roles})
			if err == nil {
				t.Fatalf("planned roles %v; want an error", shapeOf(p).Waves)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// An empty annotation is no annotation: the object joins the default
	// role, as before.
	empty := deploy(t, "api", "", "")
	empty.SetAnnotations(map[string]string{object.RoleAnnotation: ""})
	p, err := NewPlan([]*unstructured.Unstructured{empty}, PlanOptions{App: "web"})
	if err != nil || len(p.Roles()) != 1 || p.Roles()[0].Name != DefaultRole {
		t.Errorf("unannotated object: plan %v, error %v", p, err)
	}
}
