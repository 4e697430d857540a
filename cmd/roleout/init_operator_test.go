package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// TestInitOperatorPlansAndRollsOut: roleout init on a kubebuilder
// operator's layout (testdata/init-operator: config/{crd, rbac, manager,
// webhook, certs} built by config/default, and config/samples of a custom
// resource), served by a git server, as a new user runs it. Alphabetical
// order would put the manager's Deployment (wave 3) before its
// ServiceAccount (rbac, wave 4); init reads the objects instead: certs and
// rbac first, then manager, then the webhook that calls its pods; no role
// for the base of CRDs alone; allowedKinds with the cluster-scoped kinds;
// samples depends on default for its CRD. Every app plans from git as
// written, with no order warning, and run --once rolls both out on the
// local control plane, default first, with no edit.
func TestInitOperatorPlansAndRollsOut(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "operator")
	if _, err := repo.CommitDir("main", "operator", "testdata/init-operator", "."); err != nil {
		t.Fatal(err)
	}
	res := runInit(t, repo.URL())
	apps := res.byName
	for _, a := range res.Apps {
		if len(a.Needs) != 0 {
			t.Errorf("app %s needs %v; want nothing", a.Name, a.Needs)
		}
	}
	var roles []string
	for _, r := range apps["default"].Roles {
		roles = append(roles, r.Name+":"+string(rune('0'+r.UpgradeOrder)))
	}
	if got, want := strings.Join(roles, " "), "certs:1 rbac:1 manager:2 webhook:3"; got != want {
		t.Errorf("default's roles: %s; want %s", got, want)
	}
	kinds := apps["default"].AllowedKinds
	if !slices.ContainsFunc(kinds, func(k config.AllowedKind) bool { return k.Kind == "CustomResourceDefinition" }) ||
		!slices.ContainsFunc(kinds, func(k config.AllowedKind) bool { return k.Kind == "ValidatingWebhookConfiguration" }) {
		t.Errorf("default's allowedKinds %v lack the CRD or the webhook configuration", kinds)
	}
	if got := apps["samples"].DependsOn; !slices.Equal(got, []string{"default"}) {
		t.Errorf("samples depends on %v; want [default]", got)
	}
	if res.Untranslated == nil {
		t.Error("untranslated is null; want a list")
	}

	cfg := writeInitConfig(t, res, "")
	for _, app := range []string{"default", "samples"} {
		s := planJSON(t, "plan", "--config", cfg, "--app", app)
		if len(s.Warnings) > 0 {
			t.Errorf("plan of %s warns: %v", app, s.Warnings)
		}
	}
	if code, _, errOut := cli("run", "--once", "--config", cfg); code != exitOK {
		t.Fatalf("run --once: exit %d: %s", code, errOut)
	}
	for _, app := range []string{"default", "samples"} {
		if st := readStatus(t, repo, app); st.Phase != status.PhaseSucceeded {
			t.Errorf("%s: %s %q", app, st.Phase, st.Message)
		}
	}
	dyn, err := dynamic.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	widgets := dyn.Resource(schema.GroupVersionResource{Group: "init.roleout.test", Version: "v1", Resource: "widgets"})
	if _, err := widgets.Namespace("widgets").Get(context.Background(), "sample", metav1.GetOptions{}); err != nil {
		t.Errorf("Widget widgets/sample: %v", err)
	}
}
