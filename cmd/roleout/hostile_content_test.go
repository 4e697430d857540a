package main

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
)

// hostileClusterCRD is a cluster-scoped CRD an operator installed, as
// cert-manager's ClusterIssuer is: kustomize's table does not know it.
const hostileClusterCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: clustergadgets.hostile.example.com}
spec:
  group: hostile.example.com
  scope: Cluster
  names: {plural: clustergadgets, singular: clustergadget, kind: ClusterGadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

// TestHostileScopeIsTheCluster: with default destinations (every
// namespaced kind, of the cluster-scoped ones Namespace only), an app's
// commit declares cluster-scoped kinds kustomize's built-in table does not
// know — a Kubernetes kind newer than it (FlowSchema, ServiceCIDR) and a
// custom resource of a cluster-scoped CRD the cluster serves — and a kind
// nothing defines. Each is refused as the cluster-scoped kind it is (or
// as of unknown scope), naming allowedKinds, and none is created, even
// with kustomize's namespace field set on the overlay. Listed, the custom
// resource rolls out cluster-wide, as the cluster serves it.
func TestHostileScopeIsTheCluster(t *testing.T) {
	t.Parallel()
	c := testcluster.Require(t, cluster)
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(hostileClusterCRD), &crd.Object); err != nil {
		t.Fatal(err)
	}
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	gadgets := dyn.Resource(schema.GroupVersionResource{Group: "hostile.example.com", Version: "v1", Resource: "clustergadgets"})
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := gadgets.List(ctx, metav1.ListOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatalf("the ClusterGadget CRD is not served: %v", err)
	}

	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "hostile-scope")
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {v: \"1\"}\n"
	cases := []struct {
		name, file, want string
		created          func() error
	}{
		{"a FlowSchema", "apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: hostile-flows}\n" +
			"spec: {priorityLevelConfiguration: {name: exempt}, matchingPrecedence: 2, rules: [{subjects: [{kind: Group, group: {name: system:authenticated}}], " +
			"resourceRules: [{verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*']}]}]}\n",
			"FlowSchema/hostile-flows: cluster-scoped kind FlowSchema.flowcontrol.apiserver.k8s.io is not allowed for app scoped",
			func() error {
				_, err := dyn.Resource(schema.GroupVersionResource{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "flowschemas"}).Get(ctx, "hostile-flows", metav1.GetOptions{})
				return err
			}},
		{"a ServiceCIDR", "apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: hostile-cidr}\nspec: {cidrs: [10.250.0.0/24]}\n",
			"ServiceCIDR/hostile-cidr: cluster-scoped kind ServiceCIDR.networking.k8s.io is not allowed for app scoped",
			func() error {
				_, err := dyn.Resource(schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "servicecidrs"}).Get(ctx, "hostile-cidr", metav1.GetOptions{})
				return err
			}},
		{"a cluster-scoped custom resource", "apiVersion: hostile.example.com/v1\nkind: ClusterGadget\nmetadata: {name: hostile-gadget}\n",
			"ClusterGadget/hostile-gadget: cluster-scoped kind ClusterGadget.hostile.example.com is not allowed for app scoped",
			func() error { _, err := gadgets.Get(ctx, "hostile-gadget", metav1.GetOptions{}); return err }},
		{"a kind nothing defines", "apiVersion: nowhere.example.com/v1\nkind: Phantom\nmetadata: {name: p}\n",
			"Phantom/scoped/p: kind Phantom.nowhere.example.com is of unknown scope for app scoped", func() error { return apierrors.NewNotFound(schema.GroupResource{}, "") }},
	}
	config := writeConfig(t, repo.URL(), "- {name: scoped, path: apps/scoped, namespace: scoped}\n")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				"apps/scoped/kustomization.yaml": "namespace: scoped\nresources: [ns.yaml, cm.yaml, hostile.yaml]\n",
				"apps/scoped/ns.yaml":            "apiVersion: v1\nkind: Namespace\nmetadata: {name: scoped}\n",
				"apps/scoped/cm.yaml":            cm,
				"apps/scoped/hostile.yaml":       tc.file,
			}
			if _, err := repo.Commit("main", tc.name, files); err != nil {
				t.Fatal(err)
			}
			logs := runApp(t, config, exitError)
			if !strings.Contains(logs, tc.want) {
				t.Errorf("logs lack %q:\n%s", tc.want, logs)
			}
			if err := tc.created(); !apierrors.IsNotFound(err) {
				t.Errorf("the refused object: %v, want not found", err)
			}
			// plan --config asks no cluster: a kind neither Kubernetes nor
			// the render defines is of unknown scope there.
			kind, _, _ := strings.Cut(tc.want, "/")
			if code, _, errOut := cli("plan", "--config", config, "--app", "scoped"); code != exitError || !strings.Contains(errOut, "refused") || !strings.Contains(errOut, "\n"+kind+"/") {
				t.Errorf("plan --config: exit %d, stderr %q; want %d refusing the %s", code, errOut, exitError, kind)
			}
		})
	}
	t.Run("listed, the custom resource goes where the cluster serves it", func(t *testing.T) {
		files := map[string]string{
			"apps/scoped/kustomization.yaml": "namespace: scoped\nresources: [ns.yaml, cm.yaml, hostile.yaml]\n",
			"apps/scoped/ns.yaml":            "apiVersion: v1\nkind: Namespace\nmetadata: {name: scoped}\n",
			"apps/scoped/cm.yaml":            cm,
			"apps/scoped/hostile.yaml":       cases[2].file,
		}
		if _, err := repo.Commit("main", "listed", files); err != nil {
			t.Fatal(err)
		}
		listed := writeConfig(t, repo.URL(), "- {name: scoped, path: apps/scoped, namespace: scoped, allowedKinds: "+
			`[{group: "", kind: "*"}, {group: hostile.example.com, kind: ClusterGadget}]}`+"\n")
		runApp(t, listed, exitOK)
		if g, err := gadgets.Get(ctx, "hostile-gadget", metav1.GetOptions{}); err != nil || g.GetNamespace() != "" {
			t.Errorf("ClusterGadget hostile-gadget: %v", err)
		}
	})
}

// TestContentCannotGrantItself: an app's repository cannot give itself
// what its config did not. It cannot write the agent's control ConfigMap
// (nor declare the agent's namespace, which exists and is not its own),
// cannot adopt a ConfigMap made by hand with the adopt annotation unless
// allowedAnnotations lists it, and cannot have prune delete a Namespace
// it did not create, even where the config adopts and prunes persistent
// objects.
func TestContentCannotGrantItself(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, ns := range []string{"grant-own", "grant-by-hand"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.CoreV1().ConfigMaps("grant-own").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "by-hand"}, Data: map[string]string{"v": "hand"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "grant")
	adopt := "annotations: {roleout.dev/adopt: \"true\", roleout.dev/prune: \"true\"}"
	app := "- {name: granter, path: apps/granter, namespace: grant-own, prune: true, force: true, timeout: 30s%s}\n"

	t.Run("the agent's control ConfigMap", func(t *testing.T) {
		commitOverlay(t, repo, "granter", "take the control ConfigMap", map[string]string{
			"ns.yaml":      "apiVersion: v1\nkind: Namespace\nmetadata: {name: default, " + adopt + "}\n",
			"control.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + control.ConfigMapName + ", namespace: default, " + adopt + "}\ndata: {suspended: \"\"}\n",
		})
		logs := runApp(t, writeConfig(t, repo.URL(), strings.Replace(app, "%s", "", 1)), exitError)
		for _, want := range []string{
			"Namespace/default: namespace default is the agent's own and not allowed for app granter unless the config names it",
			"ConfigMap/default/roleout-control: is one of the agent's own objects in its namespace default, which no app may write",
		} {
			if !strings.Contains(logs, want) {
				t.Errorf("logs lack %q:\n%s", want, logs)
			}
		}
		if cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, control.ConfigMapName, metav1.GetOptions{}); err == nil && cm.Labels[object.AppLabel] != "" {
			t.Errorf("the control ConfigMap was taken over: %v", cm.Labels)
		}
	})

	hand := map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: by-hand, " + adopt + "}\ndata: {v: repo}\n"}
	t.Run("the adopt annotation alone", func(t *testing.T) {
		commitOverlay(t, repo, "granter", "adopt by annotation", hand)
		logs := runApp(t, writeConfig(t, repo.URL(), strings.Replace(app, "%s", "", 1)), exitError)
		want := `ConfigMap/grant-own/by-hand: exists without roleout's ownership (no label roleout.dev/app); apps[0].adopt: true or annotation roleout.dev/adopt: "true" ` +
			`on the object takes it over where apps[0].allowedAnnotations lists it`
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
		if cm, err := cs.CoreV1().ConfigMaps("grant-own").Get(ctx, "by-hand", metav1.GetOptions{}); err != nil || cm.Data["v"] != "hand" {
			t.Errorf("the hand-made ConfigMap: %v %v, want untouched", err, cm.Data)
		}
		runApp(t, writeConfig(t, repo.URL(), strings.Replace(app, "%s", ", allowedAnnotations: [roleout.dev/adopt]", 1)), exitOK)
		if cm, err := cs.CoreV1().ConfigMaps("grant-own").Get(ctx, "by-hand", metav1.GetOptions{}); err != nil || cm.Data["v"] != "repo" {
			t.Errorf("the ConfigMap, adopted where the config honours the annotation: %v %v", err, cm.Data)
		}
	})

	t.Run("a Namespace the app did not create", func(t *testing.T) {
		allowed := ", allowedNamespaces: [grant-by-hand], adopt: true, prunePersistent: true, allowedAnnotations: [roleout.dev/adopt, roleout.dev/prune]"
		files := map[string]string{"cm.yaml": hand["cm.yaml"], "ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: grant-by-hand, " + adopt + "}\n"}
		commitOverlay(t, repo, "granter", "adopt a hand-made Namespace", files)
		config := writeConfig(t, repo.URL(), strings.Replace(app, "%s", allowed, 1))
		runApp(t, config, exitOK)
		commitOverlay(t, repo, "granter", "drop it", hand)
		logs := runApp(t, config, exitOK)
		if want := "a Namespace the app did not create (annotation roleout.dev/created-by is not granter) is never pruned"; !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
		if ns, err := cs.CoreV1().Namespaces().Get(ctx, "grant-by-hand", metav1.GetOptions{}); err != nil || ns.DeletionTimestamp != nil {
			t.Errorf("Namespace grant-by-hand: %v, want kept", err)
		}
	})
}
