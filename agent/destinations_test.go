package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/status"
)

// TestReconcileRefusesOutsideDestinations: a render with one object in a
// namespace the app may not use, or of a cluster-scoped kind it does not
// list, is refused whole: nothing applied, nothing pruned, and the status
// names the object and the field.
func TestReconcileRefusesOutsideDestinations(t *testing.T) {
	stray := testObject("v1", "ConfigMap", "kube-system", "stray")
	god := testObject("rbac.authorization.k8s.io/v1", "ClusterRole", "", "god")
	cases := []struct {
		name  string
		extra *unstructured.Unstructured
		want  string
	}{
		{"namespace", stray, "ConfigMap/kube-system/stray: namespace kube-system is not allowed for app llm (apps[0].allowedNamespaces unset"},
		{"cluster-scoped kind", god, "ClusterRole/god: cluster-scoped kind ClusterRole.rbac.authorization.k8s.io is not allowed for app llm (apps[0].allowedKinds unset"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(threeRoles("decode:1"), func(a *config.App) { a.Prune = true })
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			// The next commit changes decode, drops router and adds the
			// refused object: none of it may reach the cluster.
			h.newCommit('b', append(threeRoles("decode:2")[:3], tc.extra))
			h.applier.applied = nil
			err := h.agent.RunOnce(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if len(h.applier.applied) > 0 || len(h.applier.pruned) > 0 {
				t.Errorf("applied %v, pruned %v; want nothing", h.applier.applied, h.applier.pruned)
			}
			st := h.appStatus(t)
			if st.Phase != status.PhaseFailed || !strings.Contains(st.Message, tc.want) || !strings.Contains(st.Message, "nothing of it applied") {
				t.Errorf("status %s %q, want Failed naming %q", st.Phase, st.Message, tc.want)
			}
		})
	}
}

// TestRollbackRefusesOutsideDestinations: a rollback re-applies recorded
// objects, which are checked like a render: a revision the app's rules no
// longer allow is refused and nothing of it is applied.
func TestRollbackRefusesOutsideDestinations(t *testing.T) {
	h, ctl := rollbackHarness(t, nil)
	// Revision 1 of decode lives in namespace app, which the app no longer
	// allows; git's version moved to namespace other.
	h.agent.cfg.Apps[0].AllowedNamespaces = []string{"other"}
	objs := threeRoles("decode:2")
	objs = objs[1:] // no Namespace app
	for _, o := range objs {
		o.SetNamespace("other")
	}
	h.newCommit('c', objs)
	h.setControl(ctl, rollbackData("decode", 1, "t1"))
	st, applied := h.runOnce(t)
	want := "Deployment/app/decode: namespace app is not allowed for app llm (apps[0].allowedNamespaces: [other], and the app's namespace default)"
	if rb := st.Rollback; rb == nil || rb.State != "Refused" || !strings.Contains(rb.Message, want) || !strings.Contains(rb.Message, "roll back decode to revision 1 refused") {
		t.Errorf("rollback record %+v, want Refused with %q", rb, want)
	}
	if slices.Contains(h.applier.namespaces(), "app") {
		t.Errorf("applied %v in namespace app", applied)
	}
}
