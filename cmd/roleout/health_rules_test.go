package main

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// TestHealthRulesGateAWave: an app's CEL health rule for a kind kstatus
// cannot judge (a Gizmo, whose CRD the app holds, with no controller)
// decides its wave on the local control plane: a Gizmo whose status says
// nothing keeps the wave in progress until the timeout, and the rollout
// fails naming the rule; once something sets status.ready, the next run
// finds it current and the rollout succeeds.
func TestHealthRulesGateAWave(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	const ns = "health-rules"
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, ns)
	if _, err := repo.Commit("main", "gizmo", map[string]string{
		"app/kustomization.yaml": "resources: [crd.yaml, ns.yaml, gizmo.yaml]\n",
		"app/ns.yaml":            "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + ns + "}\n",
		"app/crd.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.health.roleout.test}
spec:
  group: health.roleout.test
  names: {kind: Gizmo, listKind: GizmoList, plural: gizmos, singular: gizmo}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
          status: {type: object, properties: {ready: {type: boolean}, error: {type: string}}}
`,
		"app/gizmo.yaml": "apiVersion: health.roleout.test/v1\nkind: Gizmo\nmetadata: {name: g, namespace: " + ns + "}\nspec: {size: 1}\n",
	}); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, repo.URL(), "- name: "+ns+"\n  path: app\n  timeout: 4s\n  allowedKinds: [{group: apiextensions.k8s.io, kind: CustomResourceDefinition}, {group: \"\", kind: Namespace}, {group: health.roleout.test, kind: Gizmo}]\n"+
		"  healthChecks: [{apiVersion: health.roleout.test/v1, kind: Gizmo, current: \"status.ready == true\", failed: \"status.?error.orValue('') != ''\"}]\n")
	if code, _, _ := cli("run", "--once", "--config", cfg); code == exitOK {
		t.Fatal("run --once succeeded with a Gizmo no rule calls current")
	}
	st := readStatus(t, repo, ns)
	if st.Phase != status.PhaseFailed || !strings.Contains(st.Message, `health rule "status.ready == true"`) {
		t.Fatalf("phase %s, message %q; want Failed naming the rule", st.Phase, st.Message)
	}
	dyn := dynamic.NewForConfigOrDie(cluster.Config)
	gizmos := dyn.Resource(schema.GroupVersionResource{Group: "health.roleout.test", Version: "v1", Resource: "gizmos"}).Namespace(ns)
	if _, err := gizmos.Patch(context.Background(), "g", types.MergePatchType, []byte(`{"status":{"ready":true}}`), metav1.PatchOptions{FieldManager: "gizmo-controller"}); err != nil {
		t.Fatal(err)
	}
	if code, _, logs := cli("run", "--once", "--config", cfg); code != exitOK {
		t.Fatalf("run --once once the Gizmo is ready: exit %d:\n%s", code, logs)
	}
	if st := readStatus(t, repo, ns); st.Phase != status.PhaseSucceeded {
		t.Errorf("phase %s, message %q; want Succeeded", st.Phase, st.Message)
	}
}
